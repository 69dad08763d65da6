// Ahead-of-time export (tessel/aot/exported_kernel.hpp): what the launcher header holds for a
// kernel's launch, and the exact refusals. tests/aot/ builds and runs exported kernels.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "last_block_column_sums.hpp"
#include "pointer_table_kernels.hpp"
#include "source_line.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

// A grid over n / 128 blocks of a fast_divmod by d, with a scaled store.
struct ScaledRows : Script {
  static constexpr const char* param_names[] = {"n", "d", "scale", "x"};
  void operator()(Int32 n, Int32 d, Float32 scale, Ptr<float> x) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    auto [q, r] = fast_divmod(blockIdx.x, d);
    auto t = load_global(global_view(x, {n}), {blockIdx.x * 128}, {128});
    store_global(global_view(x, {n}), t * scale + cast<float>(q + r), {blockIdx.x * 128});
  }
};

TEST(AheadOfTime, TheLauncherComputesWhatTheLaunchDoes) {
  Kernel<ScaledRows> k(Device::simulator(), KernelOptions{"sm_90a"});
  const aot::ExportedKernel e = k.exported("scaled_rows", 4096, 3, 2.0f, (float*)nullptr);
  EXPECT_EQ(e.compiled_for, "x: 16-byte aligned; n: multiple of 16");
  const std::string header = aot::launcher_header({e});
  for (const char* piece :
       {"class scaled_rows {", "void operator()(CUstream stream, int32_t n, int32_t d, float scale, Buffer x) {",
        "is not a multiple of 16, and this export was compiled for multiples of 16",
        "detail::divisor_magic(uint32_t(d), &multiplier, &log2);", "if (x.elements >= 0) {",
        "cuLaunchKernel(function_, tessel_grid[0], tessel_grid[1], tessel_grid[2], 128, 1, 1",
        "float tessel_p2 = scale;"})
    EXPECT_NE(header.find(piece), std::string::npos) << piece << "\n" << header.substr(0, 6000);
}

// sm_80 code embeds its PTX too, loaded where the GPU refuses the cubin (after compute capability
// 8.x); sm_90a code, whose PTX no other GPU runs, embeds none. Each launcher refuses a GPU that runs
// no code of its target, naming it.
TEST(AheadOfTime, LaunchersRunOnlyWhereTheirTargetRuns) {
  const std::string fallback = "if (loaded == CUDA_ERROR_NO_BINARY_FOR_GPU) loaded = cuModuleLoadData(&module_, kPtx);";
  Kernel<ScaledRows> ampere(Device::simulator(), KernelOptions{"sm_80"});
  const aot::ExportedKernel e = ampere.exported("scaled_rows", 4096, 3, 2.0f, (float*)nullptr);
  ASSERT_NE(e.ptx.find(".target sm_80"), std::string::npos);
  const std::string header = aot::launcher_header({e});
  EXPECT_NE(header.find(fallback), std::string::npos) << header.substr(0, 6000);
  // The PTX's bytes and the NUL after them.
  EXPECT_NE(header.find(fmt::format("static constexpr unsigned char kPtx[{}] = {{", e.ptx.size() + 1)),
            std::string::npos);
  EXPECT_NE(header.find("if (major < 8) throw Error(\"kernel ScaledRows is built for sm_80, which runs on GPUs of "
                        "compute capability 8.0 and later; \""),
            std::string::npos);
  Kernel<ScaledRows> hopper(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string hopper_header =
      aot::launcher_header({hopper.exported("scaled_rows", 4096, 3, 2.0f, (float*)nullptr)});
  // A GPU of another compute capability is refused before the driver is asked, with the target it needs.
  EXPECT_NE(hopper_header.find("if (major != 9 || minor != 0) throw Error(\"kernel ScaledRows is built for sm_90a, "
                               "which runs on GPUs of compute capability 9.0 only; \""),
            std::string::npos)
      << hopper_header.substr(0, 4000);
  EXPECT_NE(
      hopper_header.find("std::to_string(minor) + \": export it for the GPU's own target (tessel aot --arch)\");"),
      std::string::npos);
  EXPECT_EQ(hopper_header.find("kPtx"), std::string::npos);
  EXPECT_NE(hopper_header.find("detail::check(cuModuleLoadData(&module_, kCubin), \"scaled_rows: cuModuleLoadData\");"),
            std::string::npos);
}

TEST(AheadOfTime, AGlobalScratchIsASetOfBuffersForEachStream) {
  Kernel<LastBlockColumnSums<>> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string header = aot::launcher_header({k.exported("column_sums", 4096, (float*)nullptr, (float*)nullptr)});
  for (const char* piece :
       {"for (CUdeviceptr b : s.buffer)", "Scratch& tessel_scratch = scratch_for(stream);",
        "if (bytes > tessel_scratch.bytes[1] || !tessel_scratch.buffer[1]) {",
        "detail::check(cuMemsetD8Async(tessel_scratch.buffer[1], 0, size_t(bytes), stream)",
        "tessel_v[3] = int64_t(tessel_scratch.buffer[0]);",
        "const std::thread::id thread = stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : "
        "std::thread::id();",
        "if (s.stream == stream && s.thread == thread) return s;"})
    EXPECT_NE(header.find(piece), std::string::npos) << piece << "\n" << header.substr(0, 8000);
}

// A kernel that waits for the grids before it is launched as their programmatic dependent.
struct WaitsThenScales : Script {
  static constexpr const char* param_names[] = {"n", "x"};
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    grid_dependency.wait();
    auto t = load_global(global_view(x, {n}), {blockIdx.x * 128}, {128});
    store_global(global_view(x, {n}), t * 2.0f, {blockIdx.x * 128});
  }
};

TEST(AheadOfTime, ADependentLaunchesWithProgrammaticStreamSerialization) {
  Kernel<WaitsThenScales> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string header = aot::launcher_header({k.exported("waits_then_scales", 4096, (float*)nullptr)});
  for (const char* piece :
       {"tessel_attrs[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;",
        "tessel_attrs[0].value.programmaticStreamSerializationAllowed = 1;",
        "config.hStream = stream; config.attrs = tessel_attrs; config.numAttrs = 1;", "cuLaunchKernelEx(&config"})
    EXPECT_NE(header.find(piece), std::string::npos) << piece << "\n" << header.substr(0, 8000);
  const std::string plain = aot::launcher_header({Kernel<ScaledRows>(Device::simulator(), KernelOptions{"sm_90a"})
                                                      .exported("scaled_rows", 4096, 3, 2.0f, (float*)nullptr)});
  EXPECT_EQ(plain.find("PROGRAMMATIC"), std::string::npos);
}

struct HalfScale : Script {
  static constexpr const char* param_names[] = {"scale", "x"};
  void operator()(Var<f16> scale, Ptr<f16> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), t * scale, {0});
  }
};

TEST(AheadOfTime, AParameterTheLauncherCannotTakeIsNamed) {
  Kernel<HalfScale> k(Device::simulator(), KernelOptions{"sm_90a"});
  const aot::ExportedKernel e = k.exported("half_scale", 1.5f, (f16*)nullptr);
  EXPECT_EQ(error_of_call([&] { aot::launcher_header({e}); }),
            source_at("tests/aot_test.cpp", "auto t = load_global(global_view(x, {32}), {0}, {32})") +
                ": aot: kernel HalfScale takes parameter scale of type f16, which an exported launcher does not take "
                "yet; pass it as f32 and convert it in the kernel");
}

// A tensor map over a pointer made from a parameter's address (as_pointer) is made by the launcher
// from that parameter's address.
TEST(AheadOfTime, ATensorMapOverAPointerMadeFromAParameterTakesItsAddress) {
  Kernel<TmaLoadThroughAReinterpretedParameter> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string header = aot::launcher_header({k.exported("tma_of_words", (uint32_t*)nullptr, (float*)nullptr)});
  EXPECT_NE(header.find("const int64_t address = tessel_v[0];"), std::string::npos) << header.substr(0, 8000);
}

}  // namespace
}  // namespace tessel::testing
