// The compile cache across processes: a second process with the same kernel loads the cubin
// without compiling; a different target, or debug mode, compiles again.
#include <array>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

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
  // Run-time sizes are not part of the key, only what the variant is specialized on: 1000 and 24
  // are multiples of 8, not of 16; 77 is neither. The target is part of the key.
  EXPECT_NE(run(env + cli + " compile vector_add 24 --arch sm_90a").find("loaded from the cache"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 77 --arch sm_90a").find("compiled by NVRTC"), std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 1000 --arch sm_80").find("compiled by NVRTC"), std::string::npos);
  // Debug mode generates other code, cached under a key of its own.
  EXPECT_NE(run(env + "TESSEL_DEBUG=1 " + cli + " compile vector_add 1000 --arch sm_90a").find("compiled by NVRTC"),
            std::string::npos);
  EXPECT_NE(run(env + "TESSEL_DEBUG=1 " + cli + " compile vector_add 1000 --arch sm_90a").find("loaded from the cache"),
            std::string::npos);
  EXPECT_NE(run(env + cli + " compile vector_add 1000 --arch sm_90a").find("loaded from the cache"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
