// `tessel cuda --standalone`: a kernel's CUDA as one translation unit, with tessel's device header
// inlined, that nvcc compiles alone (checked where the toolkit has nvcc).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli.hpp"
#include "examples.hpp"
#include "tessel/codegen/cuda.hpp"

namespace tessel {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(StandaloneCuda, InlinesTheDeviceHeaderInPlaceOfItsInclude) {
  const codegen::CudaModule m = examples::find_example("vector_add").cuda_module({1000}, "sm_90a", "");
  const std::string include = fmt::format("#include \"{}\"", codegen::kDeviceHeaderName);
  ASSERT_TRUE(contains(m.source, include)) << m.source;

  const std::string standalone = m.standalone_source();
  EXPECT_FALSE(contains(standalone, codegen::kDeviceHeaderName + std::string("\"")));
  EXPECT_FALSE(contains(standalone, "#pragma once"));
  // The header's text stands where the include was, before the kernel that uses it.
  const size_t header_at = standalone.find("struct tessel_f16 {");
  const size_t kernel_at = standalone.find("extern \"C\" __global__");
  ASSERT_NE(header_at, std::string::npos) << standalone;
  EXPECT_LT(header_at, kernel_at);
  EXPECT_EQ(standalone.substr(kernel_at), m.source.substr(m.source.find("extern \"C\" __global__")));
}

TEST(StandaloneCuda, TheCommandPrintsNoIncludeOfTessel) {
  const testing::Cli plain = testing::tessel("cuda hopper_v5 --arch sm_90a");
  ASSERT_EQ(plain.status, 0) << plain.output;
  EXPECT_TRUE(contains(plain.output, "#include \"tessel_device.h\""));

  const testing::Cli standalone = testing::tessel("cuda hopper_v5 --arch sm_90a --standalone");
  ASSERT_EQ(standalone.status, 0) << standalone.output;
  EXPECT_FALSE(contains(standalone.output, "tessel_device.h\"")) << standalone.output;
  EXPECT_TRUE(contains(standalone.output, "// tessel_device.h, inlined\n"));
  EXPECT_TRUE(contains(standalone.output, "struct alignas(64) tessel_tensor_map {"));
}

// nvcc as the toolkit tessel was configured with has it; empty where it has none.
const std::string kNvcc = TESSEL_NVCC;

// "sm_90a" -> "90", "sm_100a" -> "100".
std::string arch_number(const std::string& arch) {
  std::string digits;
  for (const char c : arch)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  return digits;
}

bool nvcc_supports(const std::string& arch) {
  const testing::Cli archs = testing::run_command(kNvcc + " --list-gpu-arch");
  return archs.status == 0 && contains(archs.output + "\n", "compute_" + arch_number(arch) + "\n");
}

class StandaloneCudaWithNvccSweep : public ::testing::TestWithParam<std::string> {};

// Every example of the target to a cubin; the last, whose kernel takes the most kinds of parameter
// (tensor maps, half-precision pointers), also to an object file with its host side, as `nvcc -c`
// builds one into a program. (Host objects for all of them would double the test's time.)
TEST_P(StandaloneCudaWithNvccSweep, EveryExampleCompilesAlone) {
  const std::string arch = GetParam();
  if (kNvcc.empty()) GTEST_SKIP() << "the CUDA toolkit tessel was configured with has no nvcc";
  if (!nvcc_supports(arch)) GTEST_SKIP() << kNvcc << " does not compile for " << arch;

  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("standalone_" + arch);
  std::filesystem::create_directories(dir);
  const std::string gencode = fmt::format("-gencode arch=compute_{0},code=sm_{0}", arch.substr(3));
  std::vector<const cli::KernelEntry*> examples_of_arch;
  for (const cli::KernelEntry& e : examples::registry().entries())
    if (std::find(e.targets.begin(), e.targets.end(), arch) != e.targets.end()) examples_of_arch.push_back(&e);
  ASSERT_FALSE(examples_of_arch.empty());
  for (const cli::KernelEntry* e : examples_of_arch) {
    const std::filesystem::path source = dir / (e->name + ".cu");
    std::ofstream(source) << e->cuda_module(e->default_sizes, arch, "").standalone_source();
    const bool host_too = e == examples_of_arch.back();
    const std::filesystem::path output = dir / (e->name + (host_too ? ".o" : ".cubin"));
    const testing::Cli nvcc = testing::run_command(
        fmt::format("{} {} {} {} -o {}", kNvcc, gencode, host_too ? "-c" : "-cubin", source.string(), output.string()));
    EXPECT_EQ(nvcc.status, 0) << e->name << " for " << arch << ":\n" << nvcc.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, StandaloneCudaWithNvccSweep, ::testing::Values("sm_80", "sm_90a", "sm_100a"),
                         [](const ::testing::TestParamInfo<std::string>& target) { return target.param; });

}  // namespace
}  // namespace tessel
