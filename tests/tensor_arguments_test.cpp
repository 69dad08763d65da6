// tessel::Tensor and Buffer as kernel arguments: their shapes and strides, and the launch's check
// that every global_view over such a parameter stays inside it, before anything runs.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "tensor_kernels.hpp"
#include "tessel/cli/host_check.hpp"

namespace tessel {
namespace {

using testing::ScaleRows;

std::string here(int line) { return fmt::format("{}:{}", __FILE__, line); }

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Tensor, IsRowMajorUnlessGivenStridesAndSpansToItsLastElement) {
  float* p = nullptr;
  const Tensor<float> dense(Device::simulator(), p, {3, 4, 5});
  EXPECT_EQ(dense.strides(), (std::vector<int64_t>{20, 5, 1}));
  EXPECT_EQ(dense.span(), 60);
  EXPECT_EQ(dense.rank(), 3);
  // Rows of 5 elements 8 apart: the last row ends at 2 * 8 + 5.
  const Tensor<float> padded(Device::simulator(), p, {3, 5}, {8, 1});
  EXPECT_EQ(padded.span(), 21);
  // A column-major [4, 3]: the last element is at 3 + 2 * 4.
  EXPECT_EQ(Tensor<float>(Device::simulator(), p, {4, 3}, {1, 4}).span(), 12);
  EXPECT_EQ(Tensor<float>(Device::simulator(), p, {4, 0}).span(), 0);
}

TEST(Tensor, RefusesShapesAndStridesItCannotDescribe) {
  float* p = nullptr;
  const Device sim = Device::simulator();
  int line = __LINE__ + 1;
  EXPECT_EQ(error_of([&] {
              Tensor<float>(sim, p, {3, -1});
            }),
            here(line) + ": Tensor: the shape [3, -1] has a negative extent");
  line = __LINE__ + 1;
  EXPECT_EQ(error_of([&] {
              Tensor<float>(sim, p, {3, 4}, {4});
            }),
            here(line) + ": Tensor: 1 strides given for the shape [3, 4] of rank 2");
  line = __LINE__ + 1;
  EXPECT_EQ(error_of([&] {
              Tensor<float>(sim, p, {3, 4}, {-4, 1});
            }),
            here(line) +
                ": Tensor: the strides [-4, 1] have a negative one; pass the pointer to the element with the "
                "lowest address and non-negative strides");
}

TEST(Tensor, OverABufferMustFitInIt) {
  Buffer<float> b(Device::simulator(), 100);
  EXPECT_EQ(Tensor<float>(b, {10, 10}).span(), 100);
  const int line = __LINE__ + 1;
  EXPECT_EQ(error_of([&] {
              Tensor<float>(b, {10, 8}, {11, 1});
            }),
            here(line) + ": Tensor: the shape [10, 8] spans 107 elements, but the buffer holds 100");
}

constexpr int kRows = 20, kCols = 64, kLd = 80;

TEST(TensorArguments, APaddedTensorThatHoldsTheViewRuns) {
  const Device sim = Device::simulator();
  const std::vector<float> x = cli::random_vector<float>(size_t(kRows) * kLd, 3);
  Buffer<float> dx(sim, x), dout(sim, cli::poisoned<float>(size_t(kRows) * kCols));
  Kernel<ScaleRows> k(sim);
  k(kRows, kCols, kLd, Tensor<float>(dx, {kRows, kLd}), Tensor<float>(dout, {kRows, kCols}));
  EXPECT_EQ(dout.download(), testing::scaled_rows(x, kRows, kCols, kLd));
}

// A leading dimension of 90 for rows 80 apart: the view reaches 19 * 90 + 64 elements.
TEST(TensorArguments, AViewPastItsTensorIsRefusedBeforeAnythingRuns) {
  const Device sim = Device::simulator();
  Buffer<float> dx(sim, cli::random_vector<float>(size_t(kRows) * kLd, 4));
  const std::vector<float> untouched = cli::poisoned<float>(size_t(kRows) * kCols);
  Buffer<float> dout(sim, untouched);
  Kernel<ScaleRows> k(sim);
  const std::string got = error_of([&] {
    k(kRows, kCols, 90, Tensor<float>(dx, {kRows, kLd}), Tensor<float>(dout, {kRows, kCols}));
  });
  EXPECT_EQ(got, ScaleRows::view_loc.str() +
                     ": kernel ScaleRows: the global_view of parameter x with shape [20, 64] and strides [90, 1] "
                     "spans 1774 elements, but the argument for x holds 1600; pass a larger tensor, or sizes that "
                     "fit it");
  // Block 0 reads only rows inside the tensor, and would have written its rows had it run.
  EXPECT_EQ(dout.download(), untouched);
}

TEST(TensorArguments, ABufferIsCheckedAsAOneDimensionalTensor) {
  const Device sim = Device::simulator();
  Buffer<float> dx(sim, size_t(kRows) * kLd), dout(sim, size_t(kRows) * kCols - 1);
  Kernel<ScaleRows> k(sim);
  const std::string got = error_of([&] { k(kRows, kCols, kLd, dx, dout); });
  EXPECT_NE(got.find(": kernel ScaleRows: the global_view of parameter out with shape [20, 64] and strides [64, 1] "
                     "spans 1280 elements, but the argument for out holds 1279; "),
            std::string::npos)
      << got;
}

TEST(TensorArguments, RawPointersAreNotCheckedAtLaunch) {
  const Device sim = Device::simulator();
  const std::vector<float> x = cli::random_vector<float>(size_t(kRows) * kLd, 5);
  Buffer<float> dx(sim, x), dout(sim, size_t(kRows) * kCols);
  Kernel<ScaleRows> k(sim);
  k(kRows, kCols, kLd, dx.data(), dout.data());
  EXPECT_EQ(dout.download(), testing::scaled_rows(x, kRows, kCols, kLd));
  // Past the end, the simulator's check of each access finds it, in the block that reads there.
  const std::string got = error_of([&] { k(kRows, kCols, 90, dx.data(), dout.data()); });
  EXPECT_NE(got.find(ScaleRows::view_loc.str() + ": out-of-bounds global read"), std::string::npos) << got;
}

// The extent of this view depends on the block, which the launch does not know.
struct ViewSizedByTheBlock : Script {
  static inline int line = 0;
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    store_global(global_view(x, {n + blockIdx.x + 32}), register_tensor<float>({64}, 1.0f), {0});
  }
};

TEST(TensorArguments, AViewSizedInsideTheKernelIsLeftToTheAccessChecks) {
  Buffer<float> x(Device::simulator(), 32);
  const std::string got = testing::error_of<ViewSizedByTheBlock>(32, Tensor<float>(x, {32}));
  EXPECT_EQ(got, here(ViewSizedByTheBlock::line) +
                     ": out-of-bounds global write of 4 bytes at byte 128 of a 128-byte allocation (index past its "
                     "end), through the global_view of arg1; check the global_view's shape and strides against the "
                     "buffer");
}

// The view's sizes read a value declared once from the parameters, which the launch computes too.
struct ViewSizedByADeclaredValue : Script {
  static inline int line = 0;
  static constexpr const char* param_names[] = {"n", "x"};
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 half = n / 2;
    line = __LINE__ + 1;
    auto view = global_view(x, {half, 2});
    store_global(view, register_tensor<float>({32, 2}, 1.0f), {0, 0});
  }
};

TEST(TensorArguments, AViewSizedByAValueDeclaredFromTheParametersIsCheckedAtLaunch) {
  Buffer<float> x(Device::simulator(), std::vector<float>(63, -1.0f));
  const std::string got = testing::error_of<ViewSizedByADeclaredValue>(64, Tensor<float>(x, {63}));
  EXPECT_EQ(got,
            here(ViewSizedByADeclaredValue::line) +
                ": kernel ViewSizedByADeclaredValue: the global_view of parameter x with shape [32, 2] and strides "
                "[2, 1] spans 64 elements, but the argument for x holds 63; pass a larger tensor, or sizes that fit "
                "it");
  EXPECT_EQ(x.download(), std::vector<float>(63, -1.0f));
}

// A view sized by a value declared inside a branch holds only where the branch is taken: the
// launch leaves it to the kernel.
struct ViewInABranchSizedThere : Script {
  static constexpr const char* param_names[] = {"n", "x"};
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    if_(n > 64, [&] {
      Int32 half = n / 2;
      store_global(global_view(x, {half, 2}), register_tensor<float>({32, 2}, 1.0f), {0, 0});
    });
  }
};

TEST(TensorArguments, AViewInABranchSizedByAValueDeclaredThereIsLeftToTheBranch) {
  Buffer<float> x(Device::simulator(), std::vector<float>(60, -1.0f));
  Kernel<ViewInABranchSizedThere>(Device::simulator())(64, Tensor<float>(x, {60}));
  EXPECT_EQ(x.download(), std::vector<float>(60, -1.0f));
}

}  // namespace
}  // namespace tessel
