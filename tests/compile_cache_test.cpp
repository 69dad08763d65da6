// The compile cache across processes: a second process with the same generated code loads the
// cubin without compiling; other code, a different target, or debug mode, compiles again. Where a
// kernel is written is not part of the key.
#include <array>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "relocated_kernels.hpp"

namespace {

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 256> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
  if (p) pclose(p);
  return out;
}

TEST(CompileCache, SecondProcessLoadsWithoutCompiling) {
  const auto dir = std::filesystem::temp_directory_path() / "tessel-cache-process-test";
  std::filesystem::remove_all(dir);
  const std::string cli = std::string(TESSEL_CLI);
  const std::string env = "TESSEL_CACHE_DIR=" + dir.string() + " ";
  const std::string first = run(env + cli + " compile vector_add 1000 --arch sm_90a");
  EXPECT_NE(first.find("compiled by NVRTC"), std::string::npos) << first;
  const std::string second = run(env + cli + " compile vector_add 1000 --arch sm_90a");
  EXPECT_NE(second.find("loaded from the cache"), std::string::npos) << second;
  // The key is the generated code: run-time sizes are not part of it, and neither are facts about
  // them that change nothing in the code (vector_add's is the same whether n is a multiple of 8,
  // as 1000 and 24 are, or of 16, as 1008 is). A fact that changes it does: where n is not known
  // to be a multiple of the 4-element runs (77), the run at the end moves element by element.
  EXPECT_NE(run(env + cli + " compile vector_add 24 --arch sm_90a").find("loaded from the cache"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 1008 --arch sm_90a").find("loaded from the cache"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 77 --arch sm_90a").find("compiled by NVRTC"), std::string::npos);
  // row_softmax moves whole vectors along a row only when the row length is a multiple of 8.
  EXPECT_NE(run(env + cli + " compile row_softmax 64 1000 --arch sm_90a").find("compiled by NVRTC"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile row_softmax 64 1001 --arch sm_90a").find("compiled by NVRTC"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile row_softmax 32 1000 --arch sm_90a").find("loaded from the cache"),
            std::string::npos);
  // The target is part of the key.
  EXPECT_NE(run(env + cli + " compile vector_add 1000 --arch sm_80").find("compiled by NVRTC"), std::string::npos);
  // Debug mode generates other code, cached under a key of its own.
  EXPECT_NE(run(env + "TESSEL_DEBUG=1 " + cli + " compile vector_add 1000 --arch sm_90a").find("compiled by NVRTC"),
            std::string::npos);
  EXPECT_NE(run(env + "TESSEL_DEBUG=1 " + cli + " compile vector_add 1000 --arch sm_90a").find("loaded from the cache"),
            std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 1000 --arch sm_90a").find("loaded from the cache"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// sm_80 code keeps its PTX beside the cubin, for GPUs after Ampere (runtime::module_image): an
// entry whose PTX is gone is compiled again, so a later GPU never finds a cubin alone.
TEST(CompileCache, Sm80EntriesKeepTheirPtx) {
  const auto dir = std::filesystem::temp_directory_path() / "tessel-cache-ptx-test";
  std::filesystem::remove_all(dir);
  const std::string compile =
      "TESSEL_CACHE_DIR=" + dir.string() + " " + std::string(TESSEL_CLI) + " compile vector_add 1000 --arch ";
  EXPECT_NE(run(compile + "sm_80").find("compiled by NVRTC"), std::string::npos);
  EXPECT_NE(run(compile + "sm_80").find("loaded from the cache"), std::string::npos);
  std::vector<std::filesystem::path> ptx;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir / "ptx"))
    if (f.is_regular_file()) ptx.push_back(f.path());
  ASSERT_EQ(ptx.size(), 1u);
  std::filesystem::remove(ptx[0]);
  EXPECT_NE(run(compile + "sm_80").find("compiled by NVRTC"), std::string::npos);
  EXPECT_NE(run(compile + "sm_80").find("loaded from the cache"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(ptx[0]));
  // sm_90a code keeps none: no other GPU runs its PTX either.
  EXPECT_NE(run(compile + "sm_90a").find("compiled by NVRTC"), std::string::npos);
  size_t entries = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir / "ptx")) entries += f.is_regular_file();
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(dir);
}

// The generated CUDA names the user's lines for its reader, but the compiled text leaves them out:
// a kernel moved down by lines added above it loads the first one's cubin; an edited body compiles.
TEST(CompileCache, WhereAKernelIsWrittenIsNotPartOfTheKeyButItsCodeIs) {
  using namespace tessel;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tessel-cache-location-test-{}", getpid());
  std::filesystem::remove_all(dir);
  setenv("TESSEL_CACHE_DIR", dir.c_str(), 1);
  float* none = nullptr;
  Kernel<tessel::testing::written_here::TunedAxpy> here(Device::simulator(), KernelOptions{"sm_90a"});
  Kernel<tessel::testing::written_lower::TunedAxpy> lower(Device::simulator(), KernelOptions{"sm_90a"});
  Kernel<tessel::testing::edited::TunedAxpy> edited(Device::simulator(), KernelOptions{"sm_90a"});
  ASSERT_NE(here.cuda_source(1000, none, none, none), lower.cuda_source(1000, none, none, none));
  EXPECT_FALSE(here.cubin(1000, none, none, none).empty());
  EXPECT_FALSE(here.stats().from_cache);
  EXPECT_FALSE(lower.cubin(1000, none, none, none).empty());
  EXPECT_TRUE(lower.stats().from_cache);
  EXPECT_FALSE(edited.cubin(1000, none, none, none).empty());
  EXPECT_FALSE(edited.stats().from_cache);
  std::filesystem::remove_all(dir);
}

}  // namespace
