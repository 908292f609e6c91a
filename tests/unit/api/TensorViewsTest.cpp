//===- TensorViewsTest.cpp - from_blob, strided views, DLPack with strides -===//
//
// On the interpreter (host memory): memory the caller owns wrapped without a
// copy, views sharing it (slice, transpose, permute, reshape, expand)
// checked element by element against index arithmetic on the original
// buffer, a kernel launched on views with their strides, strided DLPack in
// and out, and the errors for what no view can be. Then the C++ binding
// rule that comes with calling kernels on such tensors: positional
// arguments skip the parameters given by name; cdiv and next_power_of_2.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace {

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

const char* kCopy2d = R"(
import triton
import triton.language as tl

@triton.jit
def copy2d(x_ptr, y_ptr, rows, cols, sxr, sxc, syr, syc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < cols
    v = tl.load(x_ptr + r * sxr + c * sxc, mask=m)
    tl.store(y_ptr + r * syr + c * syc, v * 2.0, mask=m)
)";

TEST(TensorViews, FromBlobSharesTheCallersMemory) {
  tessera::Device dev = tessera::Device::interpreter();
  std::vector<float> host = randomFloats(7 * 13, 1);
  int released = 0;
  {
    tessera::Tensor t = tessera::Tensor::from_blob(dev, host.data(), tessera::DType::fp32, {7, 13}, {},
                                                   [&] { ++released; });
    EXPECT_EQ(t.data_ptr(), reinterpret_cast<uint64_t>(host.data()));
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(t.strides(), (std::vector<int64_t>{13, 1}));
    EXPECT_EQ(t.download<float>(), host);
    host[5] = 123.f;  // no copy: the tensor sees the write
    EXPECT_EQ(t.download<float>()[5], 123.f);
    tessera::Tensor copy = t;
    t = tessera::Tensor();
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
  // Column-major memory with explicit strides.
  tessera::Tensor cm = tessera::Tensor::from_blob(dev, host.data(), tessera::DType::fp32, {13, 7}, {1, 13});
  EXPECT_FALSE(cm.is_contiguous());
  std::vector<float> got = cm.download<float>();
  for (int64_t i = 0; i < 13; ++i)
    for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(got[i * 7 + j], host[i + j * 13]) << i << "," << j;
}

TEST(TensorViews, ViewsIndexTheSameMemory) {
  tessera::Device dev = tessera::Device::interpreter();
  const int64_t A = 5, B = 6, C = 7;
  std::vector<float> host = randomFloats(A * B * C, 2);
  tessera::Tensor t = dev.upload(host, {A, B, C});
  auto at = [&](int64_t i, int64_t j, int64_t k) { return host[(i * B + j) * C + k]; };

  tessera::Tensor s = t.slice(1, 1, -1, 2).slice(2, -3, 100);  // j in {1, 3}, k in {4, 5, 6}
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{A, 2, 3}));
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{B * C, 2 * C, 1}));
  EXPECT_EQ(s.storage_offset(), C + 4);
  EXPECT_EQ(s.data_ptr(), t.data_ptr() + (C + 4) * sizeof(float));
  std::vector<float> got = s.download<float>();
  for (int64_t i = 0; i < A; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(got[(i * 2 + j) * 3 + k], at(i, 1 + 2 * j, 4 + k));

  tessera::Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (std::vector<int64_t>{C, A, B}));
  got = p.download<float>();
  for (int64_t k = 0; k < C; ++k)
    for (int64_t i = 0; i < A; ++i)
      for (int64_t j = 0; j < B; ++j) EXPECT_EQ(got[(k * A + i) * B + j], at(i, j, k));
  EXPECT_EQ(t.transpose(0, -1).download<float>(), t.permute({2, 1, 0}).download<float>());

  tessera::Tensor c = p.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.data_ptr(), t.data_ptr());
  EXPECT_EQ(c.download<float>(), p.download<float>());
  EXPECT_EQ(c.reshape({-1}).shape(), (std::vector<int64_t>{A * B * C}));
  EXPECT_EQ(t.contiguous().data_ptr(), t.data_ptr());  // already contiguous: the same tensor

  tessera::Tensor r = t.reshape({-1, C});
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{A * B, C}));
  EXPECT_EQ(r.download<float>(), host);

  tessera::Tensor row = t.slice(0, 2, 3).slice(1, 4, 5);  // [1, 1, C]
  tessera::Tensor e = row.expand({3, A, -1, C});
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 0, C, 1}));  // -1 keeps the stride, as torch
  got = e.download<float>();
  for (size_t n = 0; n < got.size(); ++n) EXPECT_EQ(got[n], at(2, 4, n % C)) << n;

  // Empty slices are fine; the memory is never read.
  EXPECT_EQ(t.slice(0, 4, 2).numel(), 0);
  EXPECT_TRUE(t.slice(0, 4, 2).download<float>().empty());
}

// A kernel gets the view's first element and the strides the caller passes:
// 2 * x written through a transposed view of y.
TEST(TensorViews, KernelsRunOnViews) {
  tessera::Device dev = tessera::Device::interpreter();
  const int64_t rows = 37, cols = 29;
  std::vector<float> host = randomFloats(rows * (cols + 3), 3);
  tessera::Tensor base = dev.upload(host, {rows, cols + 3});
  tessera::Tensor x = base.slice(1, 2, 2 + cols);  // padded rows
  tessera::Tensor yt = dev.zeros(tessera::DType::fp32, {cols, rows});
  tessera::Tensor y = yt.transpose(0, 1);  // [rows, cols], column-major
  auto k = tessera::Program::from_source(kCopy2d, "views.py").kernel("copy2d");
  k.launch(dev, {rows}, {x, y, rows, cols, x.stride(0), x.stride(1), y.stride(0), y.stride(1)},
           {{"BLOCK", int64_t(32)}});
  std::vector<float> got = y.download<float>(), want = x.download<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t n = 0; n < got.size(); ++n) EXPECT_EQ(got[n], 2.0f * want[n]) << n;
  // And the underlying [cols, rows] buffer holds the transpose.
  std::vector<float> raw = yt.download<float>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) EXPECT_EQ(raw[j * rows + i], 2.0f * host[i * (cols + 3) + 2 + j]);
}

TEST(TensorViews, DLPackCarriesStridesBothWays) {
  tessera::Device dev = tessera::Device::interpreter();
  std::vector<float> host = randomFloats(3 * 37, 4);
  std::vector<int64_t> shape{37, 3}, strides{1, 37};  // column-major (a transposed torch tensor)
  int deleted = 0;
  tessera::dlpack::ManagedTensor m{};
  m.dl_tensor = {host.data(), {1, 0}, 2, {2, 32, 1}, shape.data(), strides.data(), 4 * sizeof(float)};
  m.manager_ctx = &deleted;
  m.deleter = [](tessera::dlpack::ManagedTensor* self) { ++*static_cast<int*>(self->manager_ctx); };
  {
    tessera::Tensor t = tessera::from_dlpack(&m);
    EXPECT_EQ(t.data_ptr(), reinterpret_cast<uint64_t>(host.data() + 4));
    EXPECT_EQ(t.strides(), strides);
    std::vector<float> got = t.download<float>();
    for (int64_t i = 0; i < 37; ++i)
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(got[i * 3 + j], host[4 + i + j * 37]);
    // Out again: a view's first element and its strides.
    tessera::Tensor v = t.slice(0, 5, 30, 3);
    auto* out = static_cast<tessera::dlpack::ManagedTensor*>(tessera::to_dlpack(v));
    EXPECT_EQ(reinterpret_cast<uint64_t>(out->dl_tensor.data), v.data_ptr());
    EXPECT_EQ(out->dl_tensor.byte_offset, 0u);
    EXPECT_EQ(out->dl_tensor.shape[0], 9);
    EXPECT_EQ(out->dl_tensor.strides[0], 3);
    EXPECT_EQ(out->dl_tensor.strides[1], 37);
    tessera::Tensor back = tessera::from_dlpack(out);
    EXPECT_EQ(back.download<float>(), v.download<float>());
  }
  EXPECT_EQ(deleted, 1);
  std::vector<int64_t> negative{-1, 37};
  m.dl_tensor.strides = negative.data();
  std::string msg = errorOf([&] { tessera::from_dlpack(&m); });
  EXPECT_NE(msg.find("negative stride"), std::string::npos) << msg;
  EXPECT_EQ(deleted, 2);  // a refused import hands the memory back too
}

TEST(TensorViews, WhatNoViewCanBeIsAnError) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Tensor t = dev.zeros(tessera::DType::fp32, {4, 6});
  auto has = [](const std::string& msg, const char* what) { return msg.find(what) != std::string::npos; };
  EXPECT_TRUE(has(errorOf([&] { t.slice(0, 0, 2, 0); }), "step must be positive"));
  EXPECT_TRUE(has(errorOf([&] { t.slice(2, 0, 1); }), "out of range"));
  EXPECT_TRUE(has(errorOf([&] { t.transpose(0, 1).reshape({24}); }), "not contiguous"));
  EXPECT_TRUE(has(errorOf([&] { t.reshape({5, -1}); }), "invalid for 24 elements"));
  EXPECT_TRUE(has(errorOf([&] { t.reshape({-1, -1}); }), "only one dimension"));
  EXPECT_TRUE(has(errorOf([&] { t.permute({0, 0}); }), "appears twice"));
  EXPECT_TRUE(has(errorOf([&] { t.expand({8, 6}); }), "only size-1 dimensions expand"));
  EXPECT_TRUE(has(errorOf([&] { t.expand({6}); }), "fewer dimensions"));
  float x = 0;
  EXPECT_TRUE(has(errorOf([&] { tessera::Tensor::from_blob(dev, &x, tessera::DType::fp32, {2}, {-1}); }),
                  "negative stride"));
  EXPECT_TRUE(has(errorOf([&] { tessera::Tensor::from_blob(dev, nullptr, tessera::DType::fp32, {2}); }), "null data"));
  EXPECT_TRUE(has(errorOf([&] { tessera::Tensor::from_blob(dev, &x, tessera::DType::fp32, {2, 2}, {1}); }),
                  "strides for a shape of rank 2"));
  EXPECT_TRUE(has(errorOf([&] { tessera::Tensor().slice(0, 0, 1); }), "undefined"));
}

}  // namespace

namespace {

const char* kBinding = R"(
import triton
import triton.language as tl

@triton.jit
def attn_like(q_ptr, out_ptr, seq_len, head_dim: tl.constexpr, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < seq_len * head_dim
    tl.store(out_ptr + offs, tl.load(q_ptr + offs, mask=m) * scale + head_dim, mask=m)

@triton.jit
def moded(x_ptr, MODE: tl.constexpr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if MODE == "double":
        x = x * 2
    elif MODE == 3:
        x = x * 3
    tl.store(y_ptr + offs, x, mask=m)
)";

// Positional arguments fill the parameters not named in the constexprs map,
// in declaration order (a constexpr declared between runtime parameters is
// given by name); Triton's rule (every parameter in order) still works.
TEST(Binding, PositionalArgumentsSkipTheNamedParameters) {
  tessera::Device dev = tessera::Device::interpreter();
  auto program = tessera::Program::from_source(kBinding, "binding.py");
  const int64_t seq = 19, hd = 16, n = seq * hd;
  std::vector<float> q = randomFloats(n, 5);
  tessera::Tensor tq = dev.upload(q, {seq, hd});
  tessera::Tensor out = dev.zeros(tessera::DType::fp32, {seq, hd});
  tessera::Kernel k = program.kernel("attn_like");
  k.launch(dev, {(n + 63) / 64}, {tq, out, seq, 0.25f}, {{"head_dim", hd}, {"BLOCK", int64_t(64)}});
  std::vector<float> got = out.download<float>();
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(got[i], q[i] * 0.25f + 16.0f) << i;
  // Prepared launches bind the same way.
  tessera::Tensor out2 = dev.zeros(tessera::DType::fp32, {seq, hd});
  k.prepare(dev, {(n + 63) / 64}, {tq, out2, seq, 0.25f}, {{"head_dim", hd}, {"BLOCK", int64_t(64)}}).launch();
  EXPECT_EQ(out2.download<float>(), got);

  // A tensor after a named constexpr: the constexpr takes its slot.
  tessera::Kernel m = program.kernel("moded");
  for (int64_t mode : {3, 1}) {
    tessera::Tensor y = dev.zeros(tessera::DType::fp32, {n});
    m.launch(dev, {(n + 63) / 64}, {tq, y, n}, {{"MODE", mode}, {"BLOCK", int64_t(64)}});
    std::vector<float> gy = y.download<float>();
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(gy[i], q[i] * float(mode)) << mode << " " << i;
  }
  // Triton's rule, every parameter in order.
  tessera::Tensor y = dev.zeros(tessera::DType::fp32, {n});
  m.launch(dev, {(n + 63) / 64}, {tq, int64_t(3), y, n}, {{"BLOCK", int64_t(64)}});
  EXPECT_EQ(y.download<float>()[7], q[7] * 3.0f);
  // A string constexpr cannot fill a slot before a tensor: said, with the way out.
  std::string msg = errorOf([&] {
    m.launch(dev, {1}, {tq, y, n}, {{"MODE", std::string("double")}, {"BLOCK", int64_t(64)}});
  });
  EXPECT_NE(msg.find("string constexpr 'MODE'"), std::string::npos) << msg;
}

}  // namespace

namespace {

TEST(Binding, CdivAndNextPowerOf2AsTriton) {
  static_assert(tessera::cdiv(10, 3) == 4 && tessera::cdiv(9, 3) == 3 && tessera::cdiv(0, 7) == 0);
  static_assert(tessera::next_power_of_2(1000) == 1024 && tessera::next_power_of_2(1024) == 1024);
  static_assert(tessera::next_power_of_2(1) == 1 && tessera::next_power_of_2(0) == 1);
  EXPECT_EQ(tessera::next_power_of_2(int64_t{1} << 40) + 0, int64_t{1} << 40);
  EXPECT_EQ(tessera::next_power_of_2((int64_t{1} << 40) + 1), int64_t{1} << 41);
}

}  // namespace
