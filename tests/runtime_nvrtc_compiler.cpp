#include "tessel/runtime/nvrtc_compiler.hpp"

#include <cstring>

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::runtime {
namespace {

using ::testing::IsSubstring;

// The header comes in through CompileRequest::headers, not from disk.
CompileRequest add_one_kernel(std::string arch) {
  return {
      .source = R"(#include "add_one.h"
extern "C" __global__ void k(float* data) { data[threadIdx.x] = add_one(data[threadIdx.x]); }
)",
      .kernel_name = "k",
      .arch = std::move(arch),
      .headers = {{"add_one.h", "inline float add_one(float x) { return x + 1.0f; }\n"}},
      .options = {},
  };
}

class CompileForArch : public ::testing::TestWithParam<const char*> {};

TEST_P(CompileForArch, ProducesCudaElf) {
  const CompileResult result = compile_to_cubin(add_one_kernel(GetParam()));
  ASSERT_GT(result.cubin.size(), 20u);
  EXPECT_EQ(std::memcmp(result.cubin.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  // e_machine (little-endian, offset 18) is EM_CUDA = 190.
  EXPECT_EQ(static_cast<unsigned char>(result.cubin[18]), 190);
  EXPECT_EQ(result.cubin[19], 0);
  EXPECT_GT(result.milliseconds, 0);
  // The PTX it was assembled from, for the target's virtual architecture, without a NUL inside.
  EXPECT_NE(result.ptx.find(".target " + std::string(GetParam()).substr(0, 5)), std::string::npos) << result.ptx;
  EXPECT_EQ(result.ptx.find('\0'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(SupportedArchs, CompileForArch, ::testing::Values("sm_80", "sm_90a", "sm_100a"));

TEST(CompileToCubin, PassesExtraOptions) {
  CompileRequest request = add_one_kernel("sm_80");
  request.source = "#ifndef TESSEL_TEST_FLAG\n#error TESSEL_TEST_FLAG not defined\n#endif\n" + request.source;
  EXPECT_THROW(compile_to_cubin(request), Error);
  request.options = {"-DTESSEL_TEST_FLAG=1"};
  EXPECT_FALSE(compile_to_cubin(request).cubin.empty());
}

TEST(CompileToCubin, FindsToolkitHeaders) {
  CompileRequest request = add_one_kernel("sm_90a");
  request.source = "#include <cuda_fp16.h>\n" + request.source;
  EXPECT_FALSE(compile_to_cubin(request).cubin.empty());
}

TEST(CompileToCubin, SyntaxErrorReportsTheLog) {
  CompileRequest request = add_one_kernel("sm_90a");
  request.source = "extern \"C\" __global__ void k(float* data) { int x = ; }\n";
  try {
    compile_to_cubin(request);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.message().starts_with("NVRTC failed to compile kernel 'k' for sm_90a:\nk.cu(1): error: "))
        << e.message();
    EXPECT_PRED_FORMAT2(IsSubstring, "expected an expression", e.message());
    EXPECT_NE(e.message().back(), '\n');
  }
}

TEST(CompileToCubin, RejectsUnsupportedArch) {
  try {
    compile_to_cubin(add_one_kernel("sm_75"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "cannot compile kernel 'k' for unsupported GPU architecture 'sm_75'; supported: sm_80, sm_90a, sm_100a");
  }
}

TEST(CompileToCubin, InvalidOptionIsAnError) {
  CompileRequest request = add_one_kernel("sm_80");
  request.options = {"--no-such-option"};
  try {
    compile_to_cubin(request);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.message().starts_with("NVRTC failed to compile kernel 'k' for sm_80:\n")) << e.message();
    EXPECT_PRED_FORMAT2(IsSubstring, "--no-such-option", e.message());
  }
}

TEST(NvrtcVersion, IsMajorDotMinor) {
  const std::string version = nvrtc_version();
  const auto dot = version.find('.');
  ASSERT_NE(dot, std::string::npos) << version;
  EXPECT_GT(dot, 0u) << version;
  EXPECT_LT(dot + 1, version.size()) << version;
  EXPECT_EQ(version.find_first_not_of("0123456789."), std::string::npos) << version;
  EXPECT_EQ(version.find('.', dot + 1), std::string::npos) << version;
}

}  // namespace
}  // namespace tessel::runtime
