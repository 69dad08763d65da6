// MN-major tensor-core operands on the simulator (mn_major_kernels.hpp) under every order, and
// their misuse at the user's line.
#include "expect_error.hpp"
#include "mn_major_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

std::vector<KernelOptions> orders(const char* arch) {
  std::vector<KernelOptions> out;
  for (const sim::Options& o : every_order()) out.push_back(KernelOptions{.arch = arch, .sim = o});
  return out;
}

TEST(MnMajor, WgmmaReadsATransposedAndBInBlocks) {
  for (const KernelOptions& o : orders("sm_90a")) {
    check_wgmma_mn_major_operands<f16, 128, 64, false>(o);
    check_wgmma_mn_major_operands<bf16, 192, 32, true>(o);  // attention's P V: P in registers, V in blocks
  }
}

TEST(MnMajor, Tcgen05ReadsAAndBInBlocksOrOneSpanWide) {
  for (const KernelOptions& o : orders("sm_100a")) {
    check_mn_major_mma<Tcgen05MnMajorOperands<f16, 128, 64, true>, f16, 128, 128, 64>(o, Device::simulator());
    check_mn_major_mma<Tcgen05MnMajorOperands<bf16, 64, 32, false>, bf16, 128, 64, 32>(o, Device::simulator());
  }
}

TEST(MnMajor, TheInstructionsCarryTheTransposeBitsAndBlockOffsets) {
  const std::string wgmma = Kernel<WgmmaMnMajorOperands<f16, 128, 64, false>>(Device::simulator(), {"sm_90a"})
                                .cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  // imm-trans-a 1 after A's descriptor, then B's, whose leading offset steps from block to block
  // (64 k-rows of 128 bytes, 8192 bytes: 0x200 in 16-byte units at bit 16), and imm-trans-b 1; the
  // second k-step starts 16 k-rows further, 2048 bytes: 128 units added to the start.
  EXPECT_NE(wgmma.find("1, 1, 1, %65, %67;"), std::string::npos) << wgmma;
  EXPECT_NE(wgmma.find("\"n\"(1), \"l\"((uint64_t(0x40000040u) << 32 | (0x2000000u + "), std::string::npos) << wgmma;
  EXPECT_NE(wgmma.find(">> 4) + 128u))), \"n\"(1) : \"memory\");"), std::string::npos) << wgmma;
  const std::string tcgen05 = Kernel<Tcgen05MnMajorOperands<f16, 128, 64, true>>(Device::simulator(), {"sm_100a"})
                                  .cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  // The instruction descriptor: f32 D, f16 A and B, A and B MN-major (bits 15, 16), N 128, M 128.
  EXPECT_NE(tcgen05.find(fmt::format("0x{:x}u", 1u << 4 | 3u << 15 | (128u >> 3) << 17 | (128u >> 4) << 24)),
            std::string::npos)
      << tcgen05;
}

// B in blocks 32 elements wide: two spans of 64 bytes, which a block must not be.
struct BlocksOfTheWrongWidth : Script {
  void operator()() {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = shared_tensor<f16>({64, 64});
    auto s_b = shared_tensor<f16>({2, 64, 48});
    auto acc = register_tensor<float>({64, 96}, 0.0f);
    wgmma.mma(s_a, s_b, acc);
  }
};

TEST(MnMajor, ABlockIsOneSwizzleSpan) {
  EXPECT_EQ(error_of<BlocksOfTheWrongWidth>(),
            source_at("tests/mn_major_test.cpp", "wgmma.mma(s_a, s_b, acc)") +
                ": wgmma.mma: b given in blocks [2, 64, 48] has blocks 48 elements wide (96 bytes); a block is one "
                "swizzle span, 32, 64 or 128 bytes (16, 32 or 64 elements)");
}

}  // namespace
}  // namespace tessel::testing
