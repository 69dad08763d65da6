// Printing from a kernel on the simulator (print_kernels.hpp), and its misuse.
#include "expect_error.hpp"
#include "print_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Print, TilesAndValuesFromAChosenBlock) {
  EXPECT_EQ(run_prints(Device::simulator()),
            "x: reg<f32>[4, 8] layout[4,8](d0=4 d1=2x4; threads=rep8,d0.0,d1.0; local=d1.1), block (1, 0, 0)\n"
            "  [0] -3 -2.75 -2.5 -2.25 -2 -1.75 -1.5 -1.25\n"
            "  [1] -1 -0.75 -0.5 -0.25 0 0.25 0.5 0.75\n"
            "  [2] 1 1.25 1.5 1.75 2 2.25 2.5 2.75\n"
            "  [3] 3 3.25 3.5 3.75 4 4.25 4.5 4.75\n"
            "cube: reg<i32>[2, 3, 4] layout[2,3,4](d0=2 d1=3 d2=4; threads=rep32,d0.0; local=d1.0,d2.0), block (1, 0, "
            "0)\n"
            "  [0, 0] -5 -4 -3 -2\n"
            "  [0, 1] 5 6 7 8\n"
            "  [0, 2] 15 16 17 18\n"
            "  [1, 0] 95 96 97 98\n"
            "  [1, 1] 105 106 107 108\n"
            "  [1, 2] 115 116 117 118\n"
            "row sums: reg<f16>[4, 1] layout[4,1](d0=4 d1=1; threads=rep8,d0.0,rep2; local=-), block (1, 0, 0)\n"
            "  [0] -17\n"
            "  [1] -1\n"
            "  [2] 15\n"
            "  [3] 31\n"
            "n = 5, half of n = 2.5, n > 3: 1, of 4 rows\n"
            "second warp: reg<u32>[1, 32] layout[1,32](d0=1 d1=32; threads=d1.0; local=-), block (1, 0, 0)\n"
            "  [0] 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21 21\n" +
                printed_shared_tiles());
}

TEST(Print, CompilesForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_GT(Kernel<PrintsTilesAndValues>(Device::simulator(), KernelOptions{arch}).cubin(5, (float*)nullptr).size(),
              0u)
        << arch;
}

struct TooFewValues : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    print("{} and {}", n);
  }
};

TEST(Print, EachPlaceInTheFormatTakesAValue) {
  EXPECT_EQ(error_of<TooFewValues>(3), source_at("tests/print_test.cpp", "print(\"{} and {}\", n)") +
                                           ": print(\"{} and {}\"): the format has 2 {} for 1 values; give one {} "
                                           "per value");
}

// Prints lanes 0..31, columns 0..3 of a tensor-memory tile that the warpgroup stored, from warp
// `Warp` (0 holds those lanes).
template <int Warp = 0> struct PrintsTensorMemory : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = tcgen05.alloc<float>({128, 32});
    tcgen05.store(t, (arange({128, 32}, 0) * 32 + arange({128, 32}, 1) - n).to<float>());
    tcgen05.wait_store();
    sync();
    thread_group(32 * Warp, 32, [&] { print("accumulator", tcgen05.slice(t, {0, 0}, {32, 4}, {0, 1})); });
    sync();
    tcgen05.dealloc(t);
  }
};

TEST(Print, TensorMemoryTiles) {
  std::string expected = "accumulator: tmem<f32>[32, 4], block (0, 0, 0)\n";
  for (int r = 0; r < 32; ++r) {
    expected += "  [" + std::to_string(r) + "]";
    for (int c = 0; c < 4; ++c) expected += " " + std::to_string(r * 32 + c - 7);
    expected += "\n";
  }
  for (const sim::Options& o : every_order()) {
    Kernel<PrintsTensorMemory<>> k(Device::simulator(), KernelOptions{.arch = "sm_100a", .sim = o});
    ::testing::internal::CaptureStdout();
    k(7);
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), expected);
  }
}

TEST(Print, TensorMemoryLanesArePrintedByTheWarpThatMayReadThem) {
  const std::string got = error_of_call([] {
    Kernel<PrintsTensorMemory<1>> k(Device::simulator(), KernelOptions{.arch = "sm_100a"});
    k(7);
  });
  EXPECT_EQ(got, source_at("tests/print_test.cpp", "print(\"accumulator\"") +
                     ": print: warp w may access only tensor-memory lanes 32*(w mod 4) to 32*(w mod 4)+31, so lanes "
                     "0..31 need a thread group of 32 threads (one warp per 32 lanes) whose first warp w has w mod 4 "
                     "= 0; this thread group is threads 32..63 (its first warp is warp 1)");
}

struct PrintsUnwrittenSharedMemory : Script {
  void operator()() {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 4});
    print("s", s);
  }
};

TEST(Print, ASharedTileMustBeWrittenFirst) {
  EXPECT_EQ(error_of<PrintsUnwrittenSharedMemory>(),
            source_at("tests/print_test.cpp", "print(\"s\", s)") +
                ": read of shared memory that was never written: the allocation at " +
                source_at("tests/print_test.cpp", "auto s = shared_tensor<float>({2, 4})") +
                ", byte 0 of the allocation, read by thread 0 of block (0, 0, 0); store to it (and sync()) before "
                "printing");
}

// Prints from blocks 1 and 5 of a grid of `blocks`: the launch whose grid lacks block 5 says so once.
struct PrintsFromAFarBlock : Script {
  void operator()(Int32 blocks) {
    attrs.blocks = blocks;
    attrs.warps = 1;
    print({1, 0, 0}, "near {}", blockIdx.x);
    print({5, 0, 0}, "far {}", blockIdx.x);
  }
};

TEST(Print, ABlockOutsideTheGridIsNamedOnce) {
  Kernel<PrintsFromAFarBlock> k(Device::simulator());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  k(6);
  k(2);
  k(2);
  const std::string out = ::testing::internal::GetCapturedStdout(), err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "near 1\nfar 5\nnear 1\nnear 1\n");
  EXPECT_EQ(err, source_at("tests/print_test.cpp", "print({5, 0, 0}, \"far {}\", blockIdx.x);") +
                     ": tessel: warning: kernel PrintsFromAFarBlock prints from block (5, 0, 0), but this launch's "
                     "grid is 2 x 1 x 1 blocks: nothing is printed\n");
}

}  // namespace
}  // namespace tessel::testing
