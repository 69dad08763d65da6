// `tessel tiles` and `tessel roofline`: answers, files, and one-line errors with exit code 2.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>

#include "tessel/runtime/cuda_driver.hpp"

namespace {

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr
};

Result tessel(const std::string& args) {
  Result r;
  FILE* p = popen((std::string(TESSEL_CLI) + " " + args + " 2>&1").c_str(), "r");
  std::array<char, 256> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  if (p) {
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(AnalysisCli, TilesSaysWhyA256x256x64TileDoesNotFitAnA100) {
  const Result r = tessel("tiles --gpu a100 --block 256x256x64 --stages 3");
  EXPECT_EQ(r.status, 1) << r.output;
  for (const char* s : {"shared per block      196608 B (192 KB)", "does NOT fit on A100:",
                        "needs 196608 bytes of shared memory per block; A100 allows 166912 (163 KB), 29696 bytes too "
                        "many",
                        "needs about 288 registers per thread", "ridge point (f16)     156 FLOP/B"})
    EXPECT_TRUE(contains(r.output, s)) << s << "\n" << r.output;
}

TEST(AnalysisCli, TilesReportsAFittingTile) {
  const Result r = tessel("tiles --gpu A100 --block 128x128x32 --stages 2 --threads 1024");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s :
       {"shared per stage      16384 B (16 KB)", "shared per block      32768 B (32 KB)",
        "registers per thread  ~48  = 128x128 / 1024 threads + 32", "blocks per SM         1, limited by registers",
        "occupancy             50.0%  (32 of 64 warps)", "arithmetic intensity  64 FLOP/B", "fits on A100"})
    EXPECT_TRUE(contains(r.output, s)) << s << "\n" << r.output;
}

TEST(AnalysisCli, TilesWithTensorMemory) {
  const Result r = tessel("tiles --gpu b200 --block 128x256x64 --stages 4 --threads 128 --accumulator tmem");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "tensor memory         256 of 512 columns")) << r.output;
}

TEST(AnalysisCli, RooflineWritesTheChart) {
  const auto out = std::filesystem::temp_directory_path() / "tessel-roofline-test.svg";
  std::filesystem::remove(out);
  const Result r = tessel(
      "roofline --gpu h200 --point matmul_simt:2.0:33.4e12 --point 'big tile:300:700e12' "
      "--dtype f16 --dtype f32 --out " +
      out.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "wrote " + out.string())) << r.output;
  EXPECT_TRUE(contains(r.output, "f16 tensor   peak 989.5 TFLOP/s, ridge point 206.1 FLOP/B")) << r.output;
  // 33.4 TFLOP/s at 2 FLOP/B is above what 4.8 TB/s allows: the command says what is wrong.
  EXPECT_TRUE(contains(r.output, "memory 9.6 TFLOP/s (347.9%)")) << r.output;
  EXPECT_TRUE(contains(r.output, "above every roof")) << r.output;
  std::ifstream f(out);
  std::stringstream svg;
  svg << f.rdbuf();
  EXPECT_TRUE(svg.str().starts_with("<svg"));
  EXPECT_TRUE(contains(svg.str(), ">big tile (300 FLOP/B, 700 TFLOP/s)</text>"));
  std::filesystem::remove(out);
}

// Each bad input is one line on stderr and exit code 2.
TEST(AnalysisCli, BadInputIsOneLineAndExitCode2) {
  const std::pair<const char*, const char*> cases[] = {
      {"tiles --gpu a100 --block 256x256",
       "error: --block '256x256': expected MxNxK with positive sizes, e.g. 128x128x32"},
      {"tiles --gpu a100 --block 128x-128x32", "error: --block '128x-128x32': expected MxNxK with positive sizes"},
      {"tiles --gpu a100 --block axbxc", "error: --block 'axbxc': expected MxNxK"},
      {"tiles --gpu a100", "error: --block is required: the tile as MxNxK, e.g. 128x128x32"},
      {"tiles --gpu v100 --block 1x1x1", "error: unknown GPU 'v100' (known: a100, h100, h200, b200)"},
      {"tiles --gpu a100 --block 128x128x32 --stages -3", "error: --stages '-3': expected a positive integer"},
      {"tiles --gpu a100 --block 128x128x32 --threads 0", "error: --threads '0': expected a positive integer"},
      {"tiles --gpu a100 --block 128x128x32 --dtype f64", "error: unknown dtype 'f64'"},
      {"tiles --gpu a100 --block 128x128x32 --dtype f8", "error: A100 (sm_80) has no f8 tensor cores"},
      {"tiles --gpu a100 --block 128x128x32 --accumulator smem",
       "error: --accumulator 'smem': expected registers or tmem"},
      {"tiles --gpu a100 --block 100000x1x1", "error: block_m = 100000 is out of range (1..65536)"},
      {"roofline --gpu a100 --point x:1", "error: --point 'x:1': expected label:intensity:flops"},
      {"roofline --gpu a100 --point x:-1:5", "error: --point intensity '-1': expected a positive number"},
      {"roofline --gpu a100 --point x:1:nan", "error: --point FLOP/s 'nan': expected a positive number"},
      {"roofline --gpu a100 --out /nonexistent-dir/x.svg", "error: cannot write /nonexistent-dir/x.svg"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = tessel(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_TRUE(r.output.starts_with(message)) << args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
  }
}

TEST(AnalysisCli, DeviceWithoutAGpuIsAClearError) {
  auto& driver = tessel::runtime::CudaDriver::get();
  if (driver.available()) GTEST_SKIP() << "a GPU is present";
  const Result r = tessel("tiles --gpu device --block 128x128x32");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.output.starts_with("error: --gpu device: no GPU here (")) << r.output;
  EXPECT_TRUE(contains(r.output, "name one of a100, h100, h200, b200 instead")) << r.output;
}

}  // namespace
