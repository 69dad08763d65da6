// DLPack: a tessel tensor handed over and taken back without a copy, host memory of another
// producer run on the simulator with its bounds known, and every mismatch reported.
#include <gtest/gtest.h>

#if __has_include(<dlpack/dlpack.h>)

#include <random>

#include "tessel/runtime/dlpack.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

constexpr int kN = 256;

struct Doubles : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n}), {0}, {kN});
    store_global(global_view(y, {n}), t * 2.0f, {0});
  }
};

std::vector<float> random_floats() {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(kN);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<float> doubled(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = 2 * v[i];
  return out;
}

TEST(Dlpack, ATensorRoundTripsWithoutACopy) {
  const Device sim = Device::simulator();
  const std::vector<float> host = random_floats();
  Buffer<float> b(sim, host), out(sim, std::vector<float>(kN, -1.0f));
  DLManagedTensor* exported = to_dlpack(Tensor<float>(b, {16, 16}));
  const DLTensor& d = exported->dl_tensor;
  EXPECT_EQ(d.data, b.data());
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.ndim, 2);
  EXPECT_EQ((std::vector<int64_t>(d.shape, d.shape + 2)), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ((std::vector<int64_t>(d.strides, d.strides + 2)), (std::vector<int64_t>{16, 1}));
  EXPECT_EQ(d.dtype.code, kDLFloat);
  EXPECT_EQ(d.dtype.bits, 32);
  {
    const DlpackTensor<float> back = from_dlpack<float>(exported, sim);
    EXPECT_EQ(back.tensor().data(), b.data());  // the same memory
    EXPECT_EQ(back.tensor().shape(), (std::vector<int64_t>{16, 16}));
    Kernel<Doubles> doubles(sim);
    doubles(kN, back.tensor(), out);
  }
  EXPECT_EQ(out.download(), doubled(host));
}

// Host memory a framework owns: the simulator knows its bounds while the tensor lives, and the
// producer's deleter runs when it ends.
struct Producer {
  std::vector<float> data;
  std::vector<int64_t> shape = {kN};
  bool deleted = false;
  DLManagedTensor managed{};
  DLManagedTensor* hand_over(DLDataType type = {kDLFloat, 32, 1}, DLDeviceType device = kDLCPU,
                             std::vector<int64_t>* strides = nullptr, uint64_t byte_offset = 0) {
    managed.dl_tensor = DLTensor{
        data.data(), DLDevice{device, 0}, 1, type, shape.data(), strides ? strides->data() : nullptr, byte_offset};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { static_cast<Producer*>(self->manager_ctx)->deleted = true; };
    return &managed;
  }
};

TEST(Dlpack, HostMemoryOfAnotherProducerRunsOnTheSimulatorAndIsReleased) {
  const Device sim = Device::simulator();
  Producer p{random_floats()};
  Buffer<float> out(sim, std::vector<float>(kN, -1.0f));
  {
    const DlpackTensor<float> x = from_dlpack<float>(p.hand_over(), sim);
    EXPECT_EQ(x.tensor().data(), p.data.data());
    EXPECT_TRUE(sim::is_registered(p.data.data(), kN * sizeof(float)));
    Kernel<Doubles> doubles(sim);
    doubles(kN, x.tensor(), out);
    EXPECT_FALSE(p.deleted);
  }
  EXPECT_TRUE(p.deleted);
  EXPECT_FALSE(sim::is_registered(p.data.data(), kN * sizeof(float)));
  EXPECT_EQ(out.download(), doubled(p.data));
}

std::string error_of(DLManagedTensor* m, const Device& device) {
  try {
    from_dlpack<float>(m, device);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST(Dlpack, MismatchesAreReported) {
  const Device sim = Device::simulator();
  Producer p{random_floats()};
  EXPECT_EQ(error_of(p.hand_over({kDLFloat, 16, 1}), sim),
            "from_dlpack: the tensor holds float16 elements, and a Tensor<f32> takes float32");
  EXPECT_EQ(error_of(p.hand_over({kDLFloat, 32, 1}, kDLCUDA), sim),
            "from_dlpack: the tensor is in GPU memory (DLPack device type 2), but tessel CPU simulator runs on host "
            "memory (kDLCPU)");
  std::vector<int64_t> backwards = {-1};
  EXPECT_EQ(error_of(p.hand_over({kDLFloat, 32, 1}, kDLCPU, &backwards), sim),
            "from_dlpack: the tensor has strides [-1]; tessel tensors take non-negative strides: pass a contiguous "
            "copy");
  EXPECT_EQ(error_of(p.hand_over({kDLFloat, 32, 1}, kDLCPU, nullptr, 2), sim),
            "from_dlpack: the tensor's first element (its data plus a byte offset of 2) is not aligned to its 4-byte "
            "elements");
  EXPECT_EQ(error_of(nullptr, sim), "from_dlpack: the DLManagedTensor is null");
}

}  // namespace
}  // namespace tessel::testing

#else

TEST(Dlpack, NeedsTheDlpackHeader) { GTEST_SKIP() << "<dlpack/dlpack.h> was not found (libdlpack-dev)"; }

#endif
