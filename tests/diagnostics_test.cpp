// The diagnostics corpus: exact user-facing messages, each naming the user's file and line.
#include <gtest/gtest.h>

#include <cmath>

#include "expect_error.hpp"
#include "tessel/jit/arguments.hpp"

namespace tessel {
namespace {

int line = 0;  // set by each kernel to the line the expected error points at

std::string loc(int l) { return fmt::format("{}:{}", __FILE__, l); }

float* no_data = nullptr;

struct TileOutsideItsGroup : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n}), {0}, {512});
    single_warp([&] {
      line = __LINE__ + 1;
      store_global(global_view(x, {n}), t, {0});
    });
  }
};

TEST(Diagnostics, InstructionInTheWrongThreadGroup) {
  const std::string got1 = testing::error_of<TileOutsideItsGroup>(16, no_data);
  EXPECT_EQ(got1, loc(line) + ": store_global: the tile created at " + loc(line - 3) +
                      " is distributed over 128 threads, but the current thread group has 32 threads; use tiles "
                      "inside the thread group that created them");
}

struct ShapeMismatch : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = load_global(global_view(x, {n}), {0}, {64});
    auto b = load_global(global_view(x, {n}), {0}, {32});
    line = __LINE__ + 1;
    auto c = a + b;
  }
};

TEST(Diagnostics, ShapeMismatch) {
  const std::string got2 = testing::error_of<ShapeMismatch>(16, no_data);
  EXPECT_EQ(got2, loc(line) + ": add: cannot broadcast shapes [64] and [32]");
}

struct RankMismatch : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = load_global(global_view(x, {n, n}), {0, 0}, {8, 4});
    auto b = load_global(global_view(x, {n, n, n}), {0, 0, 0}, {2, 8, 4});
    line = __LINE__ + 1;
    auto c = a + b;
  }
};

TEST(Diagnostics, RankMismatchNamesBothShapes) {
  const std::string got = testing::error_of<RankMismatch>(16, no_data);
  EXPECT_EQ(got, loc(line) +
                     ": add: operands have ranks 2 and 3 (shapes [8, 4] and [2, 8, 4]); reshape one to the "
                     "other's rank first");
}

struct DtypeMismatch : Script {
  void operator()(Int32 n, Ptr<f16> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = load_global(global_view(x, {n}), {0}, {64});
    auto b = load_global(global_view(y, {n}), {0}, {64});
    line = __LINE__ + 1;
    auto c = a * b;
  }
};

TEST(Diagnostics, DtypeMismatch) {
  const std::string got3 = testing::error_of<DtypeMismatch>(16, (f16*)nullptr, no_data);
  EXPECT_EQ(got3, loc(line) + ": mul: operand types differ (f16 and f32); convert one with .to<T>()");
}

struct StoreOfWrongType : Script {
  void operator()(Int32 n, Ptr<f16> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = register_tensor<float>({64}, 1.0f);
    line = __LINE__ + 1;
    store_global(global_view(x, {n}), a, {0});
  }
};

TEST(Diagnostics, StoreOfWrongType) {
  const std::string got4 = testing::error_of<StoreOfWrongType>(16, (f16*)nullptr);
  EXPECT_EQ(got4,
            loc(line) + ": store_global: a tile of f32 stored to a global view of f16; convert it with .to<f16>()");
}

struct MislabelledSpace : Script {
  int block_m = 64, block_n = 64;
  static Space space() {
    line = __LINE__ + 1;
    return tune("block_m, block_n", &MislabelledSpace::block_m, {64, 128});
  }
  void operator()(Int32 n) {}
};

TEST(Diagnostics, HyperparameterMissingFromTheSpace) {
  try {
    MislabelledSpace::space();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        loc(line) + ": tune(\"block_m, block_n\"): the label names 2 hyperparameters but one member pointer is given");
  }
}

struct JointTuneWithShortCandidate : Script {
  int block_m = 64, block_n = 64;
  static Space space() {
    line = __LINE__ + 1;
    return tune("block_m, block_n", {&JointTuneWithShortCandidate::block_m, &JointTuneWithShortCandidate::block_n},
                {{64, 64}, {128}});
  }
};

TEST(Diagnostics, JointTuneCandidateOfWrongArity) {
  try {
    JointTuneWithShortCandidate::space();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              loc(line) + ": tune(\"block_m, block_n\"): candidate 1 has 1 values for 2 hyperparameters");
  }
}

struct RunTimeShape : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto s = shared_tensor<float>({n, 16});
  }
};

TEST(Diagnostics, CompileTimeParameterGivenARunTimeValue) {
  const std::string got5 = testing::error_of<RunTimeShape>(16);
  EXPECT_EQ(got5, loc(line) +
                      ": shared_tensor: dimension 0 of the shape must be a compile-time int, but it is a run-time "
                      "value; use a hyperparameter or a compile-time (int) kernel parameter");
}

struct BreakInTracedLoop : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 total = 0;
    line = __LINE__ + 1;
    for (Int32 i : range(0, n)) {
      total += i;
      break;
    }
  }
};

TEST(Diagnostics, TracedLoopCorruptedByBreak) {
  const std::string got6 = testing::error_of<BreakInTracedLoop>(16);
  EXPECT_EQ(got6, loc(line) +
                      ": a C++ `break` (or `return`/`goto`) left a traced range loop; the loop body is traced once, "
                      "so this would silently cut the kernel's loop short. break_() leaves the kernel's loop, and "
                      "continue_() ends its pass");
}

struct ThreadGroupTooLarge : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    line = __LINE__ + 1;
    thread_group(32, 64, [&] { sync(); });
  }
};

TEST(Diagnostics, ThreadGroupOutsideTheBlock) {
  const std::string got7 = testing::error_of<ThreadGroupTooLarge>(16);
  EXPECT_EQ(got7, loc(line) + ": thread_group(begin=32, count=64) does not fit in the enclosing group of 64 threads");
}

struct WarpsNotSet : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    line = __LINE__ + 1;
    auto r = register_tensor<float>({32}, 0.0f);
  }
};

TEST(Diagnostics, WarpsNotSetBeforeRegisterTiles) {
  const std::string got8 = testing::error_of<WarpsNotSet>(16);
  EXPECT_EQ(got8, loc(line) +
                      ": attrs.warps is 0; set it to a value in 1..32 before creating "
                      "register tensors or thread groups");
}

struct AssignmentOfAnotherShape : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = register_tensor<float>({32, 2}, 0.0f);
    auto b = load_global(global_view(x, {n, 4}), {0, 0}, {32, 4});
    line = __LINE__ + 1;
    a = b;
  }
};

TEST(Diagnostics, AssignmentOfAnotherShape) {
  const std::string got = testing::error_of<AssignmentOfAnotherShape>(16, no_data);
  EXPECT_EQ(got, loc(line) + ": assignment to the tile reg<f32>[32, 2] (created at " + loc(line - 3) +
                     ") from a tile of a different type (reg<f32>[32, 4]); convert with .to<T>() or keep the shapes "
                     "equal");
}

struct DotThatDoesNotSplitIntoAtoms : Script {
  void operator()(Ptr<i8> a, Ptr<int32_t> c) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto ra = load_global(global_view(a, {64, 16}), {0, 0}, {64, 16});
    auto rb = load_global(global_view(a, {16, 32}), {0, 0}, {16, 32});
    line = __LINE__ + 1;
    auto d = dot(ra, rb, register_tensor<int32_t>({64, 32}, 0));
  }
};

TEST(Diagnostics, DotThatDoesNotSplitIntoAtoms) {
  const std::string got = testing::error_of<DotThatDoesNotSplitIntoAtoms>((int8_t*)nullptr, (int32_t*)nullptr);
  EXPECT_EQ(got, loc(line) +
                     ": dot: a 64x32x16 tile does not split into m16n8k32 tensor-core atoms over 4 warps (k "
                     "must be a multiple of 32, and m and n multiples of 16 and 8 times the warps along them)");
}

struct WrongOffsetCount : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto t = load_global(global_view(x, {n, n}), {0}, {32, 32});
  }
};

TEST(Diagnostics, OffsetsOfTheWrongRank) {
  const std::string got10 = testing::error_of<WrongOffsetCount>(16, no_data);
  EXPECT_EQ(got10, loc(line) + ": load_global: 1 offsets given for a tensor of rank 2");
}

struct GridFromAssignedVariable : Script {
  static constexpr int blocks_line = __LINE__ + 5;
  void operator()(Int32 n) {
    line = __LINE__ + 1;
    Int32 blocks = n;
    blocks += 1;
    attrs.blocks = blocks;
    attrs.warps = 1;
  }
};

// The error names the line that set attrs.blocks, and the line that declared the variable.
TEST(Diagnostics, GridNotComputableOnTheHost) {
  const std::string got11 = testing::error_of<GridFromAssignedVariable>(16);
  EXPECT_EQ(got11,
            loc(GridFromAssignedVariable::blocks_line) +
                ": attrs.blocks of kernel GridFromAssignedVariable uses the variable v (declared at " + loc(line) +
                "), which is not computable from the kernel's parameters; the grid is computed on the host before "
                "launch");
}

// Arguments from Python come as 64-bit integers and doubles: one beyond its parameter's type is
// refused, naming the parameter, where a conversion would wrap it (or make it infinite).
TEST(Diagnostics, ArgumentsBeyondTheRangeOfTheirParametersAreRefused) {
  using Kind = detail::ParamSpec::Kind;
  const detail::KernelSignature signature(
      "K", {{Kind::CompileInt}, {Kind::Scalar, DType::I32}, {Kind::Scalar, DType::F32}, {Kind::Scalar, DType::U32}},
      {"width", "n", "alpha", "mask"});
  const auto error = [&](std::vector<HostArg> args) {
    try {
      signature.check(args);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const HostArg width{.i = 64}, n{.i = 1000}, alpha{.kind = HostArg::Kind::Float, .f = 0.5}, mask{.i = 7};
  EXPECT_EQ(error({width, n, alpha, mask}), "no error");
  EXPECT_EQ(error({HostArg{.i = (int64_t(1) << 32) + 100}, n, alpha, mask}),
            "kernel K, parameter width (argument 0): 4294967396 does not fit in the C++ int it is compiled with");
  EXPECT_EQ(error({width, HostArg{.i = int64_t(1) << 31}, alpha, mask}),
            "kernel K, parameter n (argument 1): 2147483648 does not fit in i32");
  EXPECT_EQ(error({width, n, HostArg{.kind = HostArg::Kind::Float, .f = 1e300}, mask}),
            "kernel K, parameter alpha (argument 2): 1e+300 is beyond the range of f32");
  EXPECT_EQ(error({width, n, alpha, HostArg{.i = -1}}),
            "kernel K, parameter mask (argument 3): -1 does not fit in u32");
  EXPECT_EQ(error({width, n, alpha, HostArg{.i = int64_t(1) << 32}}),
            "kernel K, parameter mask (argument 3): 4294967296 does not fit in u32");
  EXPECT_EQ(error({width, n, alpha, HostArg{.i = int64_t(UINT32_MAX)}}), "no error");
  EXPECT_EQ(error({width, n, HostArg{.kind = HostArg::Kind::Float, .f = HUGE_VAL}, mask}), "no error")
      << "an infinity is a value of f32";
}

// A layout of as many rows as a compile-time argument: 0 rows have no layout.
struct RowsOfAnArgument : Script {
  static constexpr const char* param_names[] = {"x", "rows"};
  void operator()(Ptr<float> x, int rows) {
    attrs.blocks = 1;
    attrs.warps = 1;
    store_global(global_view(x, {rows, 32}),
                 register_tensor<float>({rows, 32}, 1.0f, Layout::local({rows, 1}) * Layout::spatial({1, 32})), {0, 0});
  }
};

// An error the trace raises away from the user's lines names the kernel and its arguments.
TEST(Diagnostics, AnErrorWithoutALineNamesTheKernelAndItsCompileTimeArguments) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 0.0f));
  EXPECT_EQ(testing::error_of<RowsOfAnArgument>(x, 2), "no error");
  EXPECT_EQ(testing::error_of<RowsOfAnArgument>(x, 0),
            "kernel RowsOfAnArgument (rows=0): layout extents must be positive, got 0 in dimension 0");
}

template <class W, class A> struct NamedAfterItsTypes {};

// Kernels are named in messages, progress output and the generated code after their class, with
// their template arguments; element types read as tessel names them.
TEST(Diagnostics, KernelNamesSpellElementTypesAsTesselDoes) {
  EXPECT_EQ(detail::kernel_name_of(typeid(NamedAfterItsTypes<i4, f16>)), "NamedAfterItsTypes_i4_f16");
  EXPECT_EQ(detail::kernel_name_of(typeid(NamedAfterItsTypes<u3, f4e2m1>)), "NamedAfterItsTypes_u3_f4e2m1");
  EXPECT_EQ(detail::kernel_name_of(typeid(NamedAfterItsTypes<int8_t, uint8_t>)), "NamedAfterItsTypes_i8_u8");
  EXPECT_EQ(detail::kernel_name_of(typeid(NamedAfterItsTypes<f6e3m2, float>)), "NamedAfterItsTypes_f6e3m2_float");
}

// fast_divmod's results are written by an instruction, so their declarations are not their values.
struct GridFromAFastDivmod : Script {
  static constexpr int blocks_line = __LINE__ + 4;
  void operator()(Int32 n, Int32 d) {
    line = __LINE__ + 1;
    auto [quotient, remainder] = fast_divmod(n, d);
    attrs.blocks = quotient + remainder;
    attrs.warps = 1;
  }
};

TEST(Diagnostics, AGridFromTheResultsOfAFastDivmodIsNotComputableOnTheHost) {
  const std::string got = testing::error_of<GridFromAFastDivmod>(16, 3);
  EXPECT_EQ(got, loc(GridFromAFastDivmod::blocks_line) +
                     ": attrs.blocks of kernel GridFromAFastDivmod uses the variable v (declared at " + loc(line) +
                     "), which is not computable from the kernel's parameters; the grid is computed on the host "
                     "before launch");
}

struct TooMuchSharedMemory : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto s = shared_tensor<float>({256, 256});
  }
};

// A shared tile that fits alone, and the scratch of a sum over warps that tips the block over: the
// message gives each allocation's share, the largest first, at the largest one's line.
int scratch_line = 0;
struct SharedTileAndReductionScratch : Script {
  void operator()(Ptr<float> x, Ptr<float> y) {
    attrs.blocks = 1;
    attrs.warps = 8;
    line = __LINE__ + 1;
    auto s = shared_tensor<float>({227, 256});
    auto t = load_global(global_view(x, {2048, 32}), {0, 0}, {2048, 32});
    scratch_line = __LINE__ + 1;
    store_global(global_view(y, {1, 32}), sum(t, 0), {0, 0});
  }
};

TEST(Diagnostics, SharedMemoryOverTheTargetsLimit) {
  const std::string got12 = testing::error_of<TooMuchSharedMemory>(16);
  EXPECT_EQ(got12, loc(line) +
                       ": kernel TooMuchSharedMemory needs 262144 bytes of shared memory per block, more than the "
                       "232448 bytes sm_90a allows: 262144 bytes for a shared tensor (f32[256, 256] at " +
                       loc(line) + ")");
  const std::string got = testing::error_of<SharedTileAndReductionScratch>((float*)nullptr, (float*)nullptr);
  EXPECT_EQ(got, loc(line) +
                     ": kernel SharedTileAndReductionScratch needs 233472 bytes of shared memory per block, more "
                     "than the 232448 bytes sm_90a allows: 232448 bytes for a shared tensor (f32[227, 256] at " +
                     loc(line) + "), 1024 bytes for the scratch of sum's partials, one row for each of 8 warps " +
                     "(f32[8, 32] at " + loc(scratch_line) + ")");
}

TEST(Diagnostics, DslCallOutsideAKernelBody) {
  Script s;
  try {
    line = __LINE__ + 1;
    s.sync();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              loc(line) +
                  ": kernel operation used outside a kernel body; tessel operations are valid only while a "
                  "kernel's operator() is being traced (call the kernel through tessel::Kernel)");
  }
}

struct TakesHalfPointer : Script {
  void operator()(Int32 n, Ptr<f16> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
  }
};

TEST(Diagnostics, ArgumentOfTheWrongType) {
  const std::string got13 = testing::error_of<TakesHalfPointer>(16, no_data);
  EXPECT_EQ(got13,
            "kernel TakesHalfPointer, parameter arg1 (argument 1): expected a pointer to f16, got a pointer to f32");
}

struct TakesPackedPointer : Script {
  void operator()(Int32 n, Ptr<u4> q) {
    attrs.blocks = 1;
    attrs.warps = 1;
  }
};

// Packed elements come as bytes; a buffer of words (as GPTQ checkpoints hold them) is refused with
// both ways to pass it.
TEST(Diagnostics, APackedParameterGivenWordsSaysWhatItTakes) {
  Buffer<uint32_t> words(Device::simulator(), 4);
  EXPECT_EQ(testing::error_of<TakesPackedPointer>(32, words),
            "kernel TakesPackedPointer, parameter arg1 (argument 1): expected a pointer to u4, got a pointer to u32; "
            "packed elements have no host type of their own and come as their bytes: pass uint8_t "
            "(Buffer<uint8_t>, a uint8 array from Python), or take the parameter as Ptr<uint32_t> and bitcast its "
            "words to u4 in the kernel");
}

TEST(Diagnostics, TensorThatIsNotContiguous) {
  Buffer<f16> b(Device::simulator(), 12);
  // [3, 4] with column-major strides: the transpose of a contiguous [4, 3] tensor.
  const std::string got = testing::error_of<TakesHalfPointer>(12, Tensor<f16>(b, {3, 4}, {1, 3}));
  EXPECT_EQ(got,
            "kernel TakesHalfPointer, parameter arg1 (argument 1): the tensor is not contiguous (its strides are not "
            "row-major for its shape), and a pointer parameter reads its elements in row-major order; pass a "
            "contiguous copy");
  // Extent-1 dimensions may have any stride, as in a PyTorch tensor sliced to one row.
  EXPECT_EQ(testing::error_of<TakesHalfPointer>(4, Tensor<f16>(b, {1, 4}, {99, 1})), "no error");
}

struct IndexOfARank1SharedTensor : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({64});
    line = __LINE__ + 1;
    auto row = s[n - 1];
  }
};

TEST(Diagnostics, IndexReportsTheLineOfTheIndexing) {
  const std::string got = testing::error_of<IndexOfARank1SharedTensor>(16);
  EXPECT_EQ(got, loc(line) + ": indexing a rank-1 shared tensor would give a scalar; load it instead");
}

struct NegationOutsideItsGroup : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto t = register_tensor<float>({64}, 1.0f);
    single_warp([&] {
      line = __LINE__ + 1;
      auto u = -t;
    });
  }
};

TEST(Diagnostics, NegationReportsTheLineOfTheMinus) {
  const std::string got = testing::error_of<NegationOutsideItsGroup>(16);
  EXPECT_EQ(got, loc(line) + ": neg: the tile created at " + loc(line - 3) +
                     " is distributed over 64 threads, but the current thread group has 32 threads; use tiles inside "
                     "the thread group that created them");
}

struct BroadcastsBothOperands : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto column = register_tensor<float>({8, 1}, 1.0f);
    auto row = register_tensor<float>({1, 8}, 2.0f);
    line = __LINE__ + 1;
    auto product = column * row;
  }
};

// A layout of 4 threads where the group has 32: the message names the replicas that complete it.
struct LayoutOfTooFewThreads : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    auto t = register_tensor<float>({4, 2}, 0.0f, Layout::spatial({4, 1}) * Layout::local({1, 2}));
  }
};

TEST(Diagnostics, BroadcastingBothOperandsAndLayoutsOfTooFewThreadsNameTheirRemedy) {
  const std::string both = testing::error_of<BroadcastsBothOperands>(16);
  EXPECT_EQ(both, loc(line) +
                      ": mul: broadcasting both operands ([8, 1] and [1, 8]) is not supported; give one of them the "
                      "result's shape [8, 8] first, as x + register_tensor<T>({8, 8}, 0) does (a product of the two "
                      "is fma(a, b, register_tensor<T>({8, 8}, 0)))");
  const std::string few = testing::error_of<LayoutOfTooFewThreads>(16);
  EXPECT_EQ(few, loc(line) +
                     ": register_tensor: the layout distributes the tile over 4 threads but the current "
                     "thread group has 32; give each element to 8 threads with Layout::replicated(2, 8) in "
                     "the composition");
}

struct CompoundAssignmentOfAnotherShape : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto acc = register_tensor<float>({32, 2}, 0.0f);
    auto step = register_tensor<float>({32, 4}, 1.0f);
    line = __LINE__ + 1;
    acc += step;
  }
};

TEST(Diagnostics, CompoundAssignmentReportsTheLineOfTheOperator) {
  const std::string got = testing::error_of<CompoundAssignmentOfAnotherShape>(16);
  EXPECT_EQ(got, loc(line) + ": add: cannot broadcast shapes [32, 2] and [32, 4]");
}

struct AssignmentFromAnUnboundTile : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = register_tensor<float>({32}, 0.0f);
    RegisterTensor unbound;
    line = __LINE__ + 1;
    a = unbound;
  }
};

TEST(Diagnostics, AssignmentFromAnUnboundTile) {
  const std::string got = testing::error_of<AssignmentFromAnUnboundTile>(16);
  EXPECT_EQ(got, loc(line) + ": use of an unassigned RegisterTensor");
}

struct SyncInsideAGroupThatSplitsAWarp : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 4;
    thread_group(16, 64, [&] {
      line = __LINE__ + 1;
      sync();
    });
  }
};

// A thread group that spans the whole block may synchronize it.
struct SyncInsideAWholeBlockGroup : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    thread_group(0, 64, [&] { sync(); });
  }
};

TEST(Diagnostics, SyncInsideAThreadGroupThatSplitsAWarp) {
  const std::string got = testing::error_of<SyncInsideAGroupThatSplitsAWarp>(16);
  EXPECT_EQ(got, loc(line) +
                     ": sync() inside a thread group of threads 16..79: a thread group's sync() is a named "
                     "barrier (bar.sync), which counts whole warps, and this group splits a warp; make the group "
                     "start and end at multiples of 32 threads, or call sync() outside it");
  EXPECT_EQ(testing::error_of<SyncInsideAWholeBlockGroup>(16), "no error");
}

struct DivisionByZeroInAnAssignment : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    Int32 quotient = 1;
    Int32 divisor = n - n;
    line = __LINE__ + 1;
    quotient = n / divisor;
  }
};

TEST(Diagnostics, AssignmentToAVariableReportsTheLineOfTheAssignment) {
  const std::string got = testing::error_of<DivisionByZeroInAnAssignment>(16);
  EXPECT_EQ(got, loc(line) + ": integer division by zero in thread 0 of block (0, 0, 0)");
}

struct GridFromABlockIndex : Script {
  static constexpr int blocks_line = __LINE__ + 2;
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = min(n, blockIdx.x + multiprocessors);
    attrs.warps = 1;
    store_global(global_view(x, {n}), register_tensor<float>({32}, 1.0f), {0});
  }
};

TEST(Diagnostics, GridFromAValueKnownOnlyInsideTheKernel) {
  const std::string got = testing::error_of<GridFromABlockIndex>(16, no_data);
  EXPECT_EQ(got, loc(GridFromABlockIndex::blocks_line) +
                     ": attrs.blocks of kernel GridFromABlockIndex uses blockIdx.x, which is only known inside the "
                     "kernel");
}

const Layout column_blocks = Layout::local({1, 4}) * Layout::spatial({32, 4}) * Layout::local({1, 4});
int load_line = 0;

struct SliceOutsideTheTile : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n, n}), {0, 0}, {32, 64}, column_blocks);
    line = __LINE__ + 1;
    auto s = t.slice({0, 48}, {32, 32});
  }
};

struct SliceOfTheWrongRank : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto t = load_global(global_view(x, {n, n}), {0, 0}, {32, 64}, column_blocks);
    line = __LINE__ + 1;
    auto s = t.slice({16}, {32, 16});
  }
};

struct SliceAcrossThreads : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    load_line = __LINE__ + 1;
    auto t = load_global(global_view(x, {n, n}), {0, 0}, {32, 64}, column_blocks);
    line = __LINE__ + 1;
    auto s = t.slice({0, 0}, {16, 64});
    store_global(global_view(x, {n, n}), s, {0, 0});
  }
};

TEST(Diagnostics, SliceOutsideTheTile) {
  const std::string outside = testing::error_of<SliceOutsideTheTile>(64, no_data);
  EXPECT_EQ(outside, loc(line) + ": slice of the tile reg<f32>[32, 64] (created at " + loc(line - 2) +
                         "): [48, 80) is outside dimension 1 of extent 64");
  const std::string rank = testing::error_of<SliceOfTheWrongRank>(64, no_data);
  EXPECT_EQ(rank, loc(line) + ": slice of the tile reg<f32>[32, 64] (created at " + loc(line - 2) +
                      "): give 2 offsets and 2 extents, got 1 and 2");
}

TEST(Diagnostics, SliceThatCutsAcrossThreads) {
  const std::string across = testing::error_of<SliceAcrossThreads>(64, no_data);
  EXPECT_EQ(across,
            loc(line) + ": slice of the tile created by load_global at " + loc(load_line) +
                ": cannot slice [16, 64] at [0, 0] out of " + column_blocks.str() +
                ": dimension 0 is spread over threads outside the slice; slice along the dimensions its threads hold "
                "whole");
}

struct ArgmaxOverAMissingDimension : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {n, n}), {0, 0}, {4, 32});
    line = __LINE__ + 1;
    store_global(global_view(x, {n, n}), argmax(t, 2).to<float>(), {0, 0});
  }
};

struct StoreSharedPastTheTile : Script {
  void operator()(Int32 n, Ptr<int32_t> x) {
    attrs.blocks = 1;
    attrs.warps = 8;
    auto bins = shared_tensor<int32_t>({256});
    line = __LINE__ + 1;
    store_shared(bins, register_tensor<int32_t>({256}, 0), {200});
  }
};

TEST(Diagnostics, ReductionAndStoreBoundsNameTheCallAndTheOffset) {
  const std::string argmax_error = testing::error_of<ArgmaxOverAMissingDimension>(64, no_data);
  EXPECT_EQ(argmax_error, loc(line) + ": argmax: dim 2 is out of range for a tile of rank 2");
  const std::string store_error = testing::error_of<StoreSharedPastTheTile>(64, (int32_t*)nullptr);
  EXPECT_EQ(
      store_error,
      loc(line) + ": store_shared: the tile [256] at offset 200 of dim 0 exceeds the shared tensor's shape [256]");
}

struct WarpsOutOfRange : Script {
  void operator()(Int32 n, Ptr<float> x) {
    attrs.blocks = 1;
    line = __LINE__ + 1;
    attrs.warps = 33;
    store_global(global_view(x, {n}), load_global(global_view(x, {n}), {0}, {32}), {0});
  }
};

TEST(Diagnostics, WarpsOutOfRangeAreReportedWhereTheyAreSet) {
  const std::string got = testing::error_of<WarpsOutOfRange>(64, no_data);
  EXPECT_EQ(got, loc(line) +
                     ": attrs.warps is 33; set it to a value in 1..32 before creating register tensors or "
                     "thread groups");
}

}  // namespace
}  // namespace tessel
