//===- DLPackVersionedTest.cpp - DLPack 1.x: versions and read-only memory -===//
//
// DLManagedTensorVersioned in and out on the interpreter (host memory): the
// version is checked (a major other than 1 is refused, its deleter still
// runs), the read-only flag makes a read-only Tensor that a launch may pass
// where the kernel only loads and refuses where it stores, and exports
// carry version 1.0 and the flag back.
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

constexpr const char* kCopy = R"(
import triton
import triton.language as tl

@triton.jit
def scaled_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m) * 3.0, mask=m)

@triton.jit
def tuple_copy(ptrs, n, BLOCK: tl.constexpr):
    src, dst = ptrs
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m) * 3.0, mask=m)
)";

struct Producer {
  std::vector<int64_t> shape;
  tessera::dlpack::ManagedTensorVersioned managed{};
  int deleted = 0;

  Producer(float* data, int64_t n, uint64_t flags, uint32_t major = 1) : shape{n} {
    managed.version = {major, 3};
    managed.flags = flags;
    tessera::dlpack::Tensor& t = managed.dl_tensor;
    t.data = data;
    t.device = {1, 0};
    t.ndim = 1;
    t.dtype = {2, 32, 1};
    t.shape = shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    managed.manager_ctx = &deleted;
    managed.deleter = [](tessera::dlpack::ManagedTensorVersioned* self) { ++*static_cast<int*>(self->manager_ctx); };
  }
};

TEST(DLPackVersioned, ReadOnlyMemoryIsLoadedButNeverStored) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2, 2);
  const int64_t n = 1001;
  std::vector<float> in(n), out(n, 0.f);
  for (float& v : in) v = dist(rng);
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Kernel k = tessera::Program::from_source(kCopy, "copy.py").kernel("scaled_copy");
  Producer src(in.data(), n, tessera::dlpack::kFlagReadOnly);
  Producer dst(out.data(), n, 0);
  {
    tessera::Tensor s = tessera::from_dlpack_versioned(&src.managed);
    tessera::Tensor d = tessera::from_dlpack_versioned(&dst.managed);
    EXPECT_TRUE(s.is_read_only());
    EXPECT_FALSE(d.is_read_only());
    EXPECT_TRUE(s.slice(0, 3, 9).is_read_only());  // views of read-only memory are read-only
    k.launch(dev, {tessera::cdiv(n, 128)}, {s, d, n}, {{"BLOCK", int64_t(128)}});
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3.0f) << i;
    // Stored through: refused, naming the argument, before anything runs.
    std::fill(out.begin(), out.end(), 0.f);
    std::string msg = errorOf([&] { k.launch(dev, {tessera::cdiv(n, 128)}, {d, s, n}, {{"BLOCK", int64_t(128)}}); });
    EXPECT_NE(msg.find("argument 'dst' is read-only"), std::string::npos) << msg;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.f) << i;
    // Inside a tuple argument: each element on its own (the read-only source
    // beside a written destination is fine; as the destination it is refused).
    tessera::Kernel t = tessera::Program::from_source(kCopy, "copy.py").kernel("tuple_copy");
    t.launch(dev, {tessera::cdiv(n, 128)}, {tessera::Arg::tuple({s, d}), n}, {{"BLOCK", int64_t(128)}});
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3.0f) << i;
    std::fill(out.begin(), out.end(), 0.f);
    msg = errorOf([&] { t.launch(dev, {tessera::cdiv(n, 128)}, {tessera::Arg::tuple({d, s}), n}, {{"BLOCK", int64_t(128)}}); });
    EXPECT_NE(msg.find("argument 'ptrs[1]' is read-only"), std::string::npos) << msg;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.f) << i;
    // Out again: version 1.0 and the flag.
    auto* back = static_cast<tessera::dlpack::ManagedTensorVersioned*>(tessera::to_dlpack_versioned(s));
    EXPECT_EQ(back->version.major, 1u);
    EXPECT_EQ(back->version.minor, 0u);
    EXPECT_EQ(back->flags & tessera::dlpack::kFlagReadOnly, tessera::dlpack::kFlagReadOnly);
    EXPECT_EQ(back->dl_tensor.shape[0], n);
    tessera::Tensor again = tessera::from_dlpack_versioned(back);
    EXPECT_TRUE(again.is_read_only());
    EXPECT_EQ(again.download<float>(), in);
    auto* writable = static_cast<tessera::dlpack::ManagedTensorVersioned*>(tessera::to_dlpack_versioned(d));
    EXPECT_EQ(writable->flags, 0u);
    writable->deleter(writable);
  }
  EXPECT_EQ(src.deleted, 1);
  EXPECT_EQ(dst.deleted, 1);
}

TEST(DLPackVersioned, AnotherMajorVersionIsRefusedAndHandedBack) {
  float x[4] = {1, 2, 3, 4};
  Producer p(x, 4, 0, /*major=*/2);
  std::string msg = errorOf([&] { tessera::from_dlpack_versioned(&p.managed); });
  EXPECT_NE(msg.find("DLPack 2.3"), std::string::npos) << msg;
  EXPECT_EQ(p.deleted, 1);
  EXPECT_NE(errorOf([] { tessera::from_dlpack_versioned(nullptr); }).find("null"), std::string::npos);
}

}  // namespace
