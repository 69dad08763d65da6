#include "tessel/runtime/cuda_driver.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::runtime {
namespace {

using ::testing::IsSubstring;

// Works with or without a GPU: everything below get() must either work or fail with the reason.
TEST(CudaDriver, GetNeverThrowsAndExplainsItself) {
  CudaDriver* driver = nullptr;
  ASSERT_NO_THROW(driver = &CudaDriver::get());
  EXPECT_EQ(driver, &CudaDriver::get());
  if (driver->available()) {
    EXPECT_TRUE(driver->unavailable_reason().empty());
    const auto info = driver->device_info();
    EXPECT_FALSE(info.name.empty());
    EXPECT_GE(info.cc_major, 7);
    EXPECT_GT(info.sm_count, 0);
    EXPECT_GT(info.total_memory, 0u);
    EXPECT_GT(info.driver_version, 0);
    EXPECT_NE(driver->context(), nullptr);
    return;
  }
  const std::string& reason = driver->unavailable_reason();
  ASSERT_FALSE(reason.empty());
  EXPECT_PRED_FORMAT2(IsSubstring, "libcuda.so.1", reason);
  try {
    driver->context();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "cannot create a CUDA context: " + reason);
  }
  try {
    driver->device_info();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "cannot query the CUDA device: " + reason);
  }
}

TEST(CudaDriver, MissingLibraryIsAReasonNotAnError) {
  const CudaDriver driver("libtessel-no-such-library.so.1");
  EXPECT_FALSE(driver.available());
  EXPECT_TRUE(driver.unavailable_reason().starts_with(
      "libtessel-no-such-library.so.1 not found (no NVIDIA driver on this machine): "))
      << driver.unavailable_reason();
  EXPECT_EQ(driver.memAlloc, nullptr);
}

TEST(CudaDriver, CheckFormatsFailures) {
  const CudaDriver driver("libtessel-no-such-library.so.1");
  EXPECT_NO_THROW(driver.check(CUDA_SUCCESS, "cuMemAlloc"));
  try {
    driver.check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", "the output tensor");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    // Without a driver to name the error, its number stands in.
    EXPECT_EQ(e.message(), "CUDA driver call cuMemAlloc failed for the output tensor: CUresult 2");
  }
  try {
    driver.check(CUDA_ERROR_INVALID_VALUE, "cuCtxSynchronize");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "CUDA driver call cuCtxSynchronize failed: CUresult 1");
  }
}

std::optional<std::filesystem::path> stub_libcuda() {
  std::vector<std::filesystem::path> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(variable); root && *root) roots.emplace_back(root);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots)
    for (const char* lib : {"lib64/stubs/libcuda.so", "targets/x86_64-linux/lib/stubs/libcuda.so"})
      if (std::filesystem::exists(root / lib)) return root / lib;
  return std::nullopt;
}

// The toolkit's stub libcuda exports the whole driver API but fails cuInit. Loading it shows that
// every versioned symbol name the table asks for exists, on any machine with the toolkit.
TEST(CudaDriver, ResolvesEveryEntryPointFromTheStubLibrary) {
  const auto stub = stub_libcuda();
  if (!stub) GTEST_SKIP() << "no stub libcuda.so in the CUDA toolkit";
  const CudaDriver driver(stub->string());
  EXPECT_FALSE(driver.available());
  // Resolution succeeded, so loading got as far as cuInit, which the stub refuses.
  EXPECT_TRUE(driver.unavailable_reason().starts_with("cuInit failed: ")) << driver.unavailable_reason();
  EXPECT_NE(driver.memAlloc, nullptr);
  EXPECT_NE(driver.eventElapsedTime, nullptr);
  EXPECT_NE(driver.launchKernel, nullptr);
  EXPECT_NE(driver.launchKernelEx, nullptr);
}

}  // namespace
}  // namespace tessel::runtime
