// The launch path on the simulator: the values of run-time parameters of every type, and the
// pointers no launch accepts.
#include "launch_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Launch, EveryParameterTypeReachesTheKernel) { check_every_parameter_type(Device::simulator()); }

TEST(Launch, NullAndUnalignedPointersAreRefused) { check_bad_pointers_are_refused(Device::simulator()); }

// A call that would tune is refused before any candidate is timed, with the pointer's message
// rather than every candidate's failure.
TEST(Launch, ACallThatWouldTuneIsRefusedBeforeTiming) {
  int timed = 0;
  KernelOptions options;
  options.tuning_timer = [&](const std::string&) { return double(++timed); };
  Kernel<examples::VectorAdd> add(Device::simulator(), options);
  Buffer<float> a(Device::simulator(), 64);
  EXPECT_EQ(error_of_call([&] { add(64, a, a, static_cast<float*>(nullptr)); }),
            "kernel VectorAdd, parameter c (argument 3): the pointer is null; pass device memory (a tessel::Buffer, "
            "or an allocation of the device the kernel runs on)");
  EXPECT_EQ(timed, 0);
}

// A grid that a parameter makes negative is refused at attrs.blocks, with the parameter's value.
TEST(Launch, ANegativeGridIsRefusedWithTheValuesItReads) {
  Kernel<examples::VectorAdd> add(Device::simulator());
  Buffer<float> a(Device::simulator(), 64);
  EXPECT_EQ(error_of_call([&] { add(-5000, a, a, a); }),
            source_at("examples/vector_add.hpp", "attrs.blocks = cdiv(n, block)") +
                ": kernel VectorAdd: grid extent 0 is -1, outside the range the hardware accepts (0 to 2147483647) "
                "(this launch has n = -5000)");
}

// The exported launcher checks the grid as the launch does, and names the same values.
TEST(Launch, TheExportedLauncherNamesTheValuesOfAGridOutOfRange) {
  Kernel<examples::VectorAdd> add(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string header =
      aot::launcher_header({add.exported("vector_add", 64, (float*)nullptr, (float*)nullptr, (float*)nullptr)});
  const std::string check = "throw Error(\"" + source_at("examples/vector_add.hpp", "attrs.blocks = cdiv(n, block)") +
                            ": \" + tessel_kernel + \": grid extent 0 is \" + std::to_string(g) + \", outside the "
                            "range the hardware accepts (0 to 2147483647) (this launch has \" + \"n = \" + "
                            "std::to_string(tessel_v[0]) + \")\");";
  EXPECT_NE(header.find(check), std::string::npos) << header.substr(0, 6000);
}

}  // namespace
}  // namespace tessel::testing
