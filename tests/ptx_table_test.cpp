// The PTX table: rendering of rows (operand numbering, operand groups of any size, modifiers,
// effects), wait-loop scaffolding, and the minimum target of each row. Rows defined here stand
// for instructions the table does not hold yet; they go through the same renderer.
#include <gtest/gtest.h>

#include <stdexcept>

#include "codegen/ptx.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"

namespace tessel {
namespace {

using codegen::Ptx;
using codegen::PtxEffect;
using codegen::PtxGroup;
using codegen::PtxRow;
using ir::Arch;

// The message of the internal error `f` raises, from the check's own text on.
template <class F> std::string internal_error_of(F&& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    const size_t at = what.find("failed: ");
    return at == std::string::npos ? what : what.substr(at + 8);
  }
  return "no error";
}

// Compiles `body` as the body of a kernel with parameters (uint32_t a, uint32_t b, float* out).
void expect_compiles(const std::string& body, const char* arch) {
  const std::string source =
      "#include \"tessel_device.h\"\nextern \"C\" __global__ void probe(uint32_t a, uint32_t b, float* out) {\n" +
      body + "\n}\n";
  runtime::CompileRequest req{source, "probe", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
  EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u) << arch << "\n" << source;
}

TEST(PtxTable, RendersOutputsBeforeInputsWithTheirConstraints) {
  EXPECT_EQ(codegen::ptx_asm(Ptx::Ldmatrix, Arch::Sm80, {{"r0", "r1", "r2", "r3"}, {"addr"}}),
            "asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\" : \"=r\"(r0), "
            "\"=r\"(r1), \"=r\"(r2), \"=r\"(r3) : \"r\"(addr) : \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::Stmatrix, Arch::Sm90a, {{"addr"}, {"x", "y"}}),
            "asm volatile(\"stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\" :: \"r\"(addr), \"r\"(x), "
            "\"r\"(y) : \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::CpAsyncWaitGroup, Arch::Sm80, {{"2"}}),
            "asm volatile(\"cp.async.wait_group %0;\" :: \"n\"(2) : \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::CpAsyncCommitGroup, Arch::Sm100a, {}),
            "asm volatile(\"cp.async.commit_group;\" ::: \"memory\");");
  // Pure instructions leave the compiler free to merge or drop them.
  EXPECT_EQ(codegen::ptx_asm(Ptx::CvtRnF16F32, Arch::Sm80, {{"bits"}, {"v"}}),
            "asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(bits) : \"f\"(v));");
  // An output written after an input in the text is still numbered first.
  const PtxRow add{
      "add", "add.s32 {sum}, {x}, {y};", Arch::Sm80, {{"x", "r"}, {"y", "r"}, {"sum", "=r"}}, PtxEffect::Pure};
  EXPECT_EQ(codegen::render_ptx(add, Arch::Sm80, {{"a"}, {"b"}, {"c"}}, {}),
            "asm(\"add.s32 %0, %1, %2;\" : \"=r\"(c) : \"r\"(a), \"r\"(b));");
}

TEST(PtxTable, MmaSyncIsSpelledFromTheAtomAndTheOperandTypes) {
  auto mma = [](DType a_type, DType b_type, DType accumulator, bool saturate = false) {
    const MmaAtom& atom = mma_atom(a_type);
    const int operand_bytes = dtype_bytes(a_type);
    std::vector<std::string> d(atom.c.local_size(), "d"), a(atom.a.local_size() * operand_bytes / 4, "a"),
        b(atom.b.local_size() * operand_bytes / 4, "b");
    return codegen::ptx_asm(Ptx::MmaSync, Arch::Sm80, {d, a, b},
                            codegen::mma_sync_modifiers(atom, a_type, b_type, accumulator, saturate));
  };
  const std::string inputs = ": \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(b), \"r\"(b));";
  EXPECT_EQ(mma(DType::F16, DType::F16, DType::F32),
            "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\" : \"+f\"(d), \"+f\"(d), \"+f\"(d), \"+f\"(d) " +
                inputs);
  EXPECT_EQ(mma(DType::BF16, DType::BF16, DType::F32),
            "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\" : \"+f\"(d), \"+f\"(d), \"+f\"(d), \"+f\"(d) " +
                inputs);
  EXPECT_EQ(mma(DType::I8, DType::I8, DType::I32),
            "asm volatile(\"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\" : \"+r\"(d), \"+r\"(d), \"+r\"(d), \"+r\"(d) " +
                inputs);
  EXPECT_EQ(mma(DType::U8, DType::I8, DType::I32),
            "asm volatile(\"mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\" : \"+r\"(d), \"+r\"(d), \"+r\"(d), \"+r\"(d) " +
                inputs);
  EXPECT_EQ(mma(DType::I8, DType::U8, DType::I32, true),
            "asm volatile(\"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, "
            "%7}, {%8, %9}, {%0, %1, %2, %3};\" : \"+r\"(d), \"+r\"(d), \"+r\"(d), \"+r\"(d) " +
                inputs);
  EXPECT_EQ(mma(DType::F8E4M3, DType::F8E5M2, DType::F32),
            "asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\" : \"+f\"(d), \"+f\"(d), \"+f\"(d), \"+f\"(d) " +
                inputs);
}

TEST(PtxTable, AnOperandGroupTakesAsManyOperandsAsTheEmissionGives) {
  // wgmma m64n128k16 with f32 accumulators: 64 registers per thread in one group.
  std::vector<std::string> accumulators, numbers, constraints;
  for (int i = 0; i < 64; ++i) {
    accumulators.push_back(fmt::format("acc[{}]", i));
    numbers.push_back(fmt::format("%{}", i));
    constraints.push_back(fmt::format("\"+f\"(acc[{}])", i));
  }
  const std::string rendered =
      codegen::ptx_asm(Ptx::WgmmaMmaSS, Arch::Sm90a, {accumulators, {"da"}, {"0"}, {"db"}, {"1"}},
                       codegen::wgmma_modifiers(128, DType::F16, DType::F16, false));
  EXPECT_EQ(rendered,
            fmt::format("asm volatile(\"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{}}}, %64, %66, 1, "
                        "1, 1, %65, %67;\" : {} : \"l\"(da), \"n\"(0), \"l\"(db), \"n\"(1) : \"memory\");",
                        fmt::join(numbers, ", "), fmt::join(constraints, ", ")));
  expect_compiles("float acc[64] = {};\nconst unsigned long long da = a, db = b;\n" + rendered +
                      "\nfor (int i = 0; i < 64; ++i) out[i] = acc[i];",
                  "sm_90a");
  // The number of operands a group got fills `{#name}`.
  EXPECT_EQ(codegen::ptx_asm(Ptx::Ldmatrix, Arch::Sm80, {{"r0"}, {"addr"}}),
            "asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(r0) : \"r\"(addr) : "
            "\"memory\");");
}

TEST(PtxTable, WaitLoopsRetryUnderAPredicateWithALabelUniqueToEachEmission) {
  const PtxRow try_wait{"mbarrier.try_wait.parity",
                        "mbarrier.try_wait.parity.shared::cta.b64 {ready}, [{barrier}], {parity};",
                        Arch::Sm90a,
                        {{"barrier", "r"}, {"parity", "r"}},
                        PtxEffect::Memory,
                        true};
  const std::string rendered = codegen::render_ptx(try_wait, Arch::Sm90a, {{"bar"}, {"b"}}, {});
  EXPECT_EQ(rendered,
            "asm volatile(\"{ .reg .pred ready; TESSEL_WAIT_%=: mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], "
            "%1; @!ready bra TESSEL_WAIT_%=; }\" :: \"r\"(bar), \"r\"(b) : \"memory\");");
  // Two loops in one function, each in its own scope under its own label.
  const std::string body = R"(
    __shared__ __align__(8) unsigned long long barrier;
    const uint32_t bar = uint32_t(__cvta_generic_to_shared(&barrier));
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    __syncthreads();
    )" + rendered + "\n" + rendered;
  for (const char* arch : {"sm_90a", "sm_100a"}) expect_compiles(body, arch);
  // Predicates are only meaningful in wait loops.
  const PtxRow stray{"mbarrier.test_wait",
                     "mbarrier.test_wait.shared::cta.b64 {ready}, [{barrier}], {state};",
                     Arch::Sm80,
                     {{"barrier", "r"}, {"state", "l"}}};
  EXPECT_EQ(internal_error_of([&] {
              codegen::render_ptx(stray, Arch::Sm80, {{"bar"}, {"s"}}, {});
            }),
            "PTX row mbarrier.test_wait has no operand group or modifier named ready");
}

TEST(PtxTable, TmaStoresAndBulkGroups) {
  // The number of coordinates is the tensor's rank.
  EXPECT_EQ(codegen::ptx_asm(Ptx::TmaStore, Arch::Sm90a, {{"map"}, {"x", "y", "z"}, {"src"}, {}}, {{"l2_hint", ""}}),
            "asm volatile(\"cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\" :: "
            "\"l\"(map), \"r\"(x), \"r\"(y), \"r\"(z), \"r\"(src) : \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::BulkCommitGroup, Arch::Sm100a, {}),
            "asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::BulkWaitGroup, Arch::Sm90a, {{"1"}}),
            "asm volatile(\"cp.async.bulk.wait_group %0;\" :: \"n\"(1) : \"memory\");");
  EXPECT_EQ(codegen::ptx_asm(Ptx::BulkWaitGroupRead, Arch::Sm90a, {{"0"}}),
            "asm volatile(\"cp.async.bulk.wait_group.read %0;\" :: \"n\"(0) : \"memory\");");
  for (Ptx p : {Ptx::TmaStore, Ptx::BulkCommitGroup, Ptx::BulkWaitGroup, Ptx::BulkWaitGroupRead})
    EXPECT_EQ(codegen::ptx_min_target(p), Arch::Sm90a);
}

// A view's cache hint: the qualifier and the policy as the optional last argument, or neither.
TEST(PtxTable, CacheHintsAddTheQualifierAndThePolicy) {
  codegen::PtxOperands operands = {{"map"}, {"x"}, {"src"}};
  codegen::PtxModifiers modifiers;
  codegen::add_cache_hint(ir::CacheHint::EvictFirst, operands, modifiers);
  EXPECT_EQ(codegen::ptx_asm(Ptx::TmaStore, Arch::Sm90a, operands, modifiers),
            "asm volatile(\"cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%1}], [%2], "
            "%3;\" :: \"l\"(map), \"r\"(x), \"r\"(src), \"l\"(tessel_l2_policy_evict_first()) : \"memory\");");
  operands = {{"dst"}, {"map"}, {"x", "y"}, {"bar"}};
  modifiers.clear();
  codegen::add_cache_hint(ir::CacheHint::EvictLast, operands, modifiers);
  EXPECT_EQ(codegen::ptx_asm(Ptx::TmaLoad, Arch::Sm90a, operands, modifiers),
            "asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint "
            "[%0], [%1, {%2, %3}], [%4], %5;\" :: \"r\"(dst), \"l\"(map), \"r\"(x), \"r\"(y), \"r\"(bar), "
            "\"l\"(tessel_l2_policy_evict_last()) : \"memory\");");
  operands = {{"dst"}, {"map"}, {"x", "y"}, {"bar"}};
  modifiers.clear();
  codegen::add_cache_hint(ir::CacheHint::Normal, operands, modifiers);
  EXPECT_EQ(codegen::ptx_asm(Ptx::TmaLoad, Arch::Sm90a, operands, modifiers),
            "asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            "[%0], [%1, {%2, %3}], [%4];\" :: \"r\"(dst), \"l\"(map), \"r\"(x), \"r\"(y), \"r\"(bar) : "
            "\"memory\");");
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::TmaStore, Arch::Sm90a, {{"map"}, {"x"}, {"src"}, {"p", "q"}}, {{"l2_hint", ""}});
            }),
            "cp.async.bulk.tensor group policy takes at most one operand, 2 given");
}

TEST(PtxTable, RenderingARowForATargetOlderThanItsMinimumIsAnInternalError) {
  EXPECT_EQ(codegen::ptx_min_target(Ptx::Stmatrix), Arch::Sm90a);
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::Stmatrix, Arch::Sm80, {{"addr"}, {"x", "y"}});
            }),
            "stmatrix needs sm_90a or newer, not sm_80");
  const PtxRow commit{"tcgen05.commit",
                      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{barrier}];",
                      Arch::Sm100a,
                      {{"barrier", "r"}}};
  EXPECT_EQ(internal_error_of([&] { codegen::render_ptx(commit, Arch::Sm90a, {{"bar"}}, {}); }),
            "tcgen05.commit needs sm_100a or newer, not sm_90a");
  EXPECT_EQ(codegen::render_ptx(commit, Arch::Sm100a, {{"bar"}}, {}),
            "asm volatile(\"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\" :: "
            "\"r\"(bar) : \"memory\");");
}

TEST(PtxTable, MisusedRowsAreInternalErrors) {
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::CpAsyncCg16, Arch::Sm80, {{"s"}, {"g"}});
            }),
            "cp.async.cg takes 3 operand groups, 2 given");
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::CvtF32F16, Arch::Sm80, {{"v", "w"}, {"bits"}});
            }),
            "cvt.f32.f16 group dst takes 1 operands, 2 given");
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::Ldmatrix, Arch::Sm80, {{}, {"addr"}});
            }),
            "ldmatrix group dst needs at least one operand");
  EXPECT_EQ(internal_error_of([] {
              codegen::ptx_asm(Ptx::CpAsyncWaitAll, Arch::Sm80, {}, {{"shape", "m16n8k16"}});
            }),
            "cp.async.wait_all was given modifiers it has no hole for");
}

}  // namespace
}  // namespace tessel
