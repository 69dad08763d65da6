// The language's semantics on the simulator (the same checks run on the GPU in tests/gpu/).
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "language_kernels.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(Language, ClassMembersAreKernelVariables) { check_pipeline_walk(Device::simulator()); }
TEST(Language, TupleMethodsBranchesAndWhileLoops) { check_collatz(Device::simulator()); }
TEST(Language, AWhileConditionThatLoadsIsTestedAfresh) { check_while_condition_with_loads(Device::simulator()); }
TEST(Language, BreakAndContinueLeaveTheLoopAndEndThePass) { check_breaks_out_of_loops(Device::simulator()); }
TEST(Language, BreakAndContinueOfSomeLanesOfAWarp) { check_exits_of_some_lanes(Device::simulator()); }
TEST(Language, ThreadAndLaneIndices) { check_thread_indices(Device::simulator()); }
TEST(Language, CastsAndElementwiseMath) { check_math_and_casts(Device::simulator()); }
TEST(Language, FmaOfHalvesRoundsOnce) { check_half_fma(Device::simulator()); }
TEST(Language, ReductionsOverEitherDimension) { check_reductions(Device::simulator()); }
// Kernel values convert with to<T>() as tiles do: a variable, and an expression of it.
struct ConvertsKernelValues : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Expr<float> half = n.to<float>() * 0.5f;
    Expr<float> third = (n + 2).to<float>() / 3.0f;
    store_global(global_view(out, {2}), register_tensor<float>({1}, half), {0});
    store_global(global_view(out, {2}), register_tensor<float>({1}, third), {1});
  }
};

// break_ outside a traced loop has no loop to leave.
struct BreakOutsideALoop : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    if_(n > 0, [&] { break_(); });
    store_global(global_view(out, {1}), register_tensor<int32_t>({1}, n), {0});
  }
};

struct ContinueOutsideALoop : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    single_thread([&] { continue_(); });
    store_global(global_view(out, {1}), register_tensor<int32_t>({1}, n), {0});
  }
};

// A break_ traced in a while_ condition would run at the start of each pass of that while_.
struct BreakInAWhileCondition : Script {
  void operator()(Int32 n, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 i = 0;
    for (Int32 pass : range(0, n))
      while_(
          [&] {
            if_(i > 3, [&] { break_(); });
            return i < n + pass;
          },
          [&] { i += 1; });
    store_global(global_view(out, {1}), register_tensor<int32_t>({1}, i), {0});
  }
};

TEST(Language, BreakOrContinueOutsideALoopOrInAConditionIsRefusedAtItsLine) {
  EXPECT_EQ(error_of<BreakInAWhileCondition>(3, (int32_t*)nullptr),
            source_at("tests/language_test.cpp", "if_(i > 3, [&] { break_(); });") +
                ": break_() in a while_ condition: the condition is computed at the start of each pass of its loop, "
                "before the body; call break_() in the body");
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(1, -1));
  EXPECT_EQ(error_of<BreakOutsideALoop>(3, out),
            source_at("tests/language_test.cpp", "if_(n > 0, [&] { break_(); });") +
                ": break_() outside a traced loop: it leaves the innermost range or while_ loop around it");
  EXPECT_EQ(error_of<ContinueOutsideALoop>(3, out),
            source_at("tests/language_test.cpp", "single_thread([&] { continue_(); });") +
                ": continue_() outside a traced loop: it ends the pass of the innermost range or while_ loop around "
                "it");
}

// break_ and continue_ are a C++ break and continue of the generated loop, which NVRTC and ptxas
// accept on every target.
TEST(Language, BreakAndContinueCompileForEveryTarget) {
  int32_t* out = nullptr;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    Kernel<BreaksOutOfLoops> k(Device::simulator(), KernelOptions{arch});
    EXPECT_GT(k.cubin(7, out).size(), 0u) << arch;
    // Four break_() and three continue_() calls, and the test of the while_ computed in its loop.
    const std::string source = k.cuda_source(7, out);
    const auto count = [&](const std::string& what) {
      int n = 0;
      for (size_t at = source.find(what); at != std::string::npos; at = source.find(what, at + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count("break;"), 5) << arch;
    EXPECT_EQ(count("continue;"), 3) << arch;
  }
}

TEST(Language, KernelValuesConvertWithTo) {
  Buffer<float> out(Device::simulator(), std::vector<float>(2, -1.0f));
  Kernel<ConvertsKernelValues> k(Device::simulator());
  k(7, out);
  EXPECT_EQ(out.download(), (std::vector<float>{3.5f, 3.0f}));
}

// where broadcasts each of its tiles along extent-1 dimensions: a row of values under a full
// condition, and a column condition choosing between two full tiles.
struct WhereBroadcasts : Script {
  void operator()(Ptr<int32_t> row, Ptr<int32_t> x, Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto r = load_global(global_view(row, {1, 8}), {0, 0}, {1, 8});
    auto t = load_global(global_view(x, {32, 8}), {0, 0}, {32, 8});
    auto picked = where(arange({32, 8}, 0) > 3, r, 0);
    auto by_row = where(arange({32, 1}, 0) % 3 == 0, t, picked);
    // A column condition between a row and a scalar: a result larger than any of the three.
    auto outer = where(arange({32, 1}, 0) < 16, r, 1);
    store_global(global_view(out, {32, 8}), by_row + outer, {0, 0});
  }
};

struct WhereOfRanksThatDiffer : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), where(arange({32, 1}, 0) > 1, t, 0), {0});
  }
};

struct WhereOfShapesThatDoNotBroadcast : Script {
  void operator()(Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {4, 8}), {0, 0}, {4, 8});
    store_global(global_view(x, {4, 8}), where(arange({4, 2}, 0) > 1, t, 0), {0, 0});
  }
};

TEST(Language, WhereBroadcastsItsTiles) {
  const Device sim = Device::simulator();
  std::mt19937 rng(41);
  std::vector<int32_t> row(8), x(256);
  for (auto& v : row) v = int32_t(rng() % 1000) - 500;
  for (auto& v : x) v = int32_t(rng() % 1000) - 500;
  Buffer<int32_t> drow(sim, row), dx(sim, x), out(sim, std::vector<int32_t>(256, -7777));
  Kernel<WhereBroadcasts> kernel(sim);
  kernel(drow, dx, out);
  std::vector<int32_t> want(256);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 8; ++j)
      want[size_t(i * 8 + j)] = (i % 3 == 0 ? x[size_t(i * 8 + j)]
                                 : i > 3    ? row[size_t(j)]
                                            : 0) +
                                (i < 16 ? row[size_t(j)] : 1);
  EXPECT_EQ(out.download(), want);
  EXPECT_EQ(error_of<WhereOfShapesThatDoNotBroadcast>(dx),
            source_at("tests/language_test.cpp", "where(arange({4, 2}, 0) > 1, t, 0)") +
                ": where: the condition [4, 2] and the values [4, 8] and a scalar do not broadcast to one shape; each "
                "extent must be the largest of them or 1");
  EXPECT_EQ(error_of<WhereOfRanksThatDiffer>(dx),
            source_at("tests/language_test.cpp", "where(arange({32, 1}, 0) > 1, t, 0)") +
                ": where: a value of rank 1 with a condition of rank 2");
}

TEST(Language, SumsOfBoolsAndNarrowIntegersPromoteTo32Bits) { check_narrow_sums(Device::simulator()); }

// `max(t, 0)` written for the elementwise maximum with 0: a reduction over an extent of 1.
struct MaxOverAnExtentOfOne : Script {
  static constexpr int max_line = __LINE__ + 5;
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {1, 256}), {0, 0}, {1, 256});
    store_global(global_view(x, {1, 256}), max(t, 0), {0, 0});
  }
};

TEST(Language, AMaxOrMinOverAnExtentOfOneIsRefusedNamingTheElementwiseForm) {
  float* x = nullptr;
  const std::string got = error_of<MaxOverAnExtentOfOne>(x);
  EXPECT_EQ(got,
            fmt::format("{0}:{1}: max(t, 0) reduces dimension 0 of the tile reg<f32>[1, 256] (created at {0}:{2}), "
                        "whose extent is 1, so it would return the tile unchanged; the elementwise maximum of a "
                        "tile and a value is maximum(t, value), with a value of the tile's type (0.0f for a float "
                        "tile)",
                        __FILE__, MaxOverAnExtentOfOne::max_line, MaxOverAnExtentOfOne::max_line - 1));
}

TEST(Language, SlicesOfRegisterTiles) { check_column_block_slices(Device::simulator()); }
TEST(Language, Unsigned64BitValues) { check_unsigned_64_bit_values(Device::simulator()); }

TEST(Language, PersistentGridOfMultiprocessorsBlocks) {
  for (int multiprocessors : {3, 1, 40}) {
    SCOPED_TRACE(fmt::format("{} multiprocessors", multiprocessors));
    check_persistent_tiles(Device::simulator(), KernelOptions{.sim = {.multiprocessors = multiprocessors}},
                           multiprocessors);
  }
}

TEST(Language, SimulatedMultiprocessorsDefaultToFour) {
  check_persistent_tiles(Device::simulator(), KernelOptions{}, 4);
}

TEST(Language, MultiprocessorsSizesTheGridOnTheHostAndIsAParameterInTheBody) {
  Kernel<PersistentTiles> k(Device::simulator(), KernelOptions{"sm_90a"});
  EXPECT_TRUE(file_check(ir::print(*k.lowered(1000, (float*)nullptr, (float*)nullptr, (int32_t*)nullptr)), R"(
    CHECK: %multiprocessors: i32) blocks=[min(div(sub(add(%arg0, 64), 1), 64), multiprocessors)]
    CHECK-NEXT: // %multiprocessors = the device's multiprocessor count, at launch
  )"));
  EXPECT_TRUE(file_check(k.cuda_source(1000, (float*)nullptr, (float*)nullptr, (int32_t*)nullptr), R"(
    CHECK: tessel_PersistentTiles(int32_t arg0, float* arg1, float* arg2, int32_t* arg3, int32_t multiprocessors)
    CHECK: for (int32_t i = int(blockIdx.x); (int(gridDim.x) > 0 ? i < v : i > v); i += int(gridDim.x))
    CHECK: r_3[l] = (int32_t)(multiprocessors);
  )"));
}

TEST(Language, SimulatedMultiprocessorsArePositive) {
  try {
    Kernel<PersistentTiles> k(Device::simulator(), KernelOptions{.sim = {.multiprocessors = 0}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "sim::Options::multiprocessors is 0; the simulated device needs at least one");
  }
}

TEST(Language, Unsigned64BitValuesAreUnsigned64BitInTheGeneratedCode) {
  const std::string src = Kernel<Unsigned64BitValues>(Device::simulator(), KernelOptions{"sm_90a"})
                              .cuda_source(1, (uint64_t*)nullptr, (uint64_t*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: tessel_Unsigned64BitValues(int32_t arg0, uint64_t* arg1, uint64_t* arg2)
    CHECK-NEXT: uint64_t v = ((uint64_t)(arg0) << 40ull);
    CHECK-NEXT: v = (uint64_t)((v + 4294967295ull));
    CHECK-NEXT: uint64_t v_1 = (v | 9223372036854775808ull);
    CHECK: uint64_t r[1];  // u64 layout
    CHECK: r_5[l] = max(r_3[l], v_1);
  )"));
}

struct UsesACompileTimeSize : Script {
  void operator()(Int32 n, int width, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(out, {n}), register_tensor<float>({width}, float(width)), {0});
  }
};

TEST(Language, CompileTimeParametersSpecializeTheKernel) {
  Kernel<UsesACompileTimeSize> k(Device::simulator());
  Buffer<float> out(Device::simulator(), std::vector<float>(64, 0));
  k(64, 32, out);
  k(64, 64, out);
  const auto got = out.download();
  EXPECT_EQ(got[0], 64.0f);
  EXPECT_EQ(got[63], 64.0f);
  // Each compile-time value traces its own kernel.
  EXPECT_NE(ir::print(*k.traced(64, 32, (float*)nullptr)), ir::print(*k.traced(64, 64, (float*)nullptr)));
}

// Parameter names that collide with the generated code's own temporaries and with C++ words.
struct ShadowingNames : Script {
  static constexpr const char* param_names[] = {"p", "t", "c0", "int"};
  void operator()(Ptr<float> p, Int32 t, Int32 c0, Ptr<float> q) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto x = load_global(global_view(p, {t}), {c0}, {64});
    store_global(global_view(q, {t}), x + 1.0f, {c0});
  }
};

TEST(Language, UserNamesNeverCaptureGeneratedTemporaries) {
  std::vector<float> host(100);
  for (int i = 0; i < 100; ++i) host[i] = float(i);
  for (const Device& dev : {Device::simulator()}) {
    Buffer<float> in(dev, host), out(dev, std::vector<float>(100, -1));
    Kernel<ShadowingNames> k(dev);
    k(in, 100, 8, out);
    const auto got = out.download();
    for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], i >= 8 && i < 72 ? float(i) + 1 : -1.0f) << i;
  }
  for (const char* arch : {"sm_80", "sm_90a"})
    EXPECT_FALSE(Kernel<ShadowingNames>(Device::simulator(), KernelOptions{arch})
                     .cubin((float*)nullptr, 100, 8, (float*)nullptr)
                     .empty());
}

TEST(Language, TheKernelsCompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const KernelOptions opt{arch};
    float* f = nullptr;
    int32_t* i = nullptr;
    EXPECT_FALSE(Kernel<PipelineWalk>(Device::simulator(), opt).cubin(10, i).empty());
    EXPECT_FALSE(Kernel<CollatzPerBlock>(Device::simulator(), opt).cubin(10, i).empty());
    EXPECT_FALSE(Kernel<MathAndCasts>(Device::simulator(), opt)
                     .cubin(10, f, (f16*)nullptr, (bf16*)nullptr, i, (uint32_t*)nullptr, f, f)
                     .empty());
    EXPECT_FALSE(Kernel<ColumnAndRowReductions>(Device::simulator(), opt).cubin(f, f, f).empty());
    EXPECT_FALSE(
        Kernel<Unsigned64BitValues>(Device::simulator(), opt).cubin(1, (uint64_t*)nullptr, (uint64_t*)nullptr).empty());
  }
}

}  // namespace
}  // namespace tessel::testing
