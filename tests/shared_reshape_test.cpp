// SharedTensor::reshape: a dense row-major view of a shared tile in another shape, on the
// simulator and in generated code, and the views it refuses at the user's line.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "source_line.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

// in [4, 32] -> a shared tile -> out read through a view [2, 2, 32] of its second half's rows
// ([2, 32] at rows 2 and 3), plus 1.
struct ThroughAReshapedView : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 2, 32}, Swizzle::none);
    store_shared(s.reshape({4, 32}), load_global(global_view(in, {4, 32}), {0, 0}, {4, 32}));
    sync();
    auto rows = s[1].reshape({64});
    store_global(global_view(out, {64}), load_shared(rows) + 1.0f, {0});
  }
};

TEST(SharedReshape, AViewOfTheSameElementsInRowMajorOrder) {
  std::vector<float> in(128);
  for (int i = 0; i < 128; ++i) in[size_t(i)] = float(i * 7 % 23) - 11.0f;
  const Device dev = Device::simulator();
  Buffer<float> din(dev, in), dout(dev, std::vector<float>(64, -1e30f));
  Kernel<ThroughAReshapedView> k(dev);
  k(din, dout);
  const std::vector<float> out = dout.download();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[size_t(i)], in[size_t(64 + i)] + 1.0f) << i;
  EXPECT_FALSE(k.cubin((float*)nullptr, (float*)nullptr).empty());
}

template <int Case> struct BadReshape : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({4, 32}, Case == 2 ? Swizzle::b128 : Swizzle::none);
    if constexpr (Case == 0) s.reshape({3, 32});
    if constexpr (Case == 1) s.transpose().reshape({128});
    if constexpr (Case == 2) s.reshape({128});
    store_global(global_view(out, {4, 32}), load_shared(s), {0, 0});
  }
};

TEST(SharedReshape, RefusesOtherCountsStridedViewsAndSwizzledTiles) {
  const Device dev = Device::simulator();
  Buffer<float> out(dev, std::vector<float>(128));
  const auto at = [](const std::string& statement) {
    return source_at("tests/shared_reshape_test.cpp", statement) + ": ";
  };
  const std::string allocated =
      "(allocated at " + source_at("tests/shared_reshape_test.cpp", "auto s = shared_tensor<float>({4, 32}, Case") +
      ")";
  EXPECT_EQ(error_of<BadReshape<0>>(out), at("s.reshape({3, 32});") + "reshape of the shared tensor [4, 32] " +
                                              allocated + " into [3, 32]: 96 elements cannot hold its 128");
  EXPECT_EQ(error_of<BadReshape<1>>(out), at("s.transpose().reshape({128});") +
                                              "reshape of the shared tensor [32, 4] " + allocated +
                                              ": it is a strided view (strides [1, 32]); reshape a dense row-major "
                                              "tile or view");
  EXPECT_EQ(error_of<BadReshape<2>>(out), at("if constexpr (Case == 2) s.reshape({128});") +
                                              "reshape of the shared tensor [4, 32] " + allocated +
                                              ": its elements are swizzled, or may be; create it with Swizzle::none "
                                              "to view it in another shape");
}

}  // namespace
}  // namespace tessel::testing
