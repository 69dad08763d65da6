// Specialization on what a call's arguments are known to be: the facts, the variants they key,
// and the code each variant gets.
#include <gtest/gtest.h>

#include "filecheck.hpp"
#include "specialization_kernels.hpp"
#include "tessel/ir/printer.hpp"
#include "vector_add.hpp"

namespace tessel::testing {
namespace {

using examples::ampere::MatmulV5Swizzled;

f16* address(uintptr_t a) { return reinterpret_cast<f16*>(a); }

std::string cuda_for(int m, int n, int k, uintptr_t pointers) {
  Kernel<MatmulV5Swizzled<f16>> kernel(Device::simulator(), KernelOptions{"sm_80"});
  return kernel.cuda_source(m, n, k, address(pointers), address(pointers), address(pointers));
}

TEST(Specialization, TheFactsOfEachArgumentAreInTheIr) {
  Kernel<MatmulV5Swizzled<f16>> kernel(Device::simulator());
  EXPECT_TRUE(file_check(ir::print(*kernel.traced(4096, 1000, 64, address(0x1000), address(0x1002), address(0x1008))),
                         "CHECK: kernel MatmulV5Swizzled_f16_f16(%m: i32 [multiple of 16], %n: i32 [multiple of 8], "
                         "%a: ptr<f16> [16-byte aligned], %b: ptr<f16>, %c: ptr<f16>)"));
}

TEST(Specialization, AnAlignedVariantCopiesWithoutRunTimeTests) {
  const std::string src = cuda_for(256, 256, 128, 0x1000);
  // A whole tile copies every run unconditionally; a tile on the edge zero-fills, with no test of
  // alignment and no element-by-element fallback anywhere.
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // copy_async global -> shared
    CHECK: const tessel_f16* tile = a + (int64_t(o0) * 128 + int64_t(o1) * 1);
    CHECK: if (o0 >= 0 && o0 + 128 <= m && o1 >= 0 && o1 + 32 <= 128) {
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(uint32_t(__cvta_generic_to_shared(s))), "l"(g) : "memory");
    CHECK: } else {
    CHECK: const int inside =
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
  )")) << src;
  EXPECT_EQ(src.find("% 16) == 0"), std::string::npos) << src;
  EXPECT_EQ(src.find("% 16 == 0"), std::string::npos) << src;
  EXPECT_EQ(src.find("s[j] ="), std::string::npos) << src;
}

TEST(Specialization, AGeneralVariantTestsAlignmentOncePerTile) {
  const std::string src = cuda_for(256, 256, 128, 0x1002);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // copy_async global -> shared
    CHECK: if (o0 >= 0 && o0 + 128 <= m && o1 >= 0 && o1 + 32 <= 128 && reinterpret_cast<uint64_t>(tile) % 16 == 0) {
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
    CHECK: } else {
    CHECK: if ((reinterpret_cast<uint64_t>(g) % 16) == 0) {
    CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
    CHECK: } else {
    CHECK: for (int j = 0; j < 8; ++j) s[j] = j < inside ? g[j] : tessel_f16((float)(0));
  )")) << src;
  // Rows of 100 elements (200 bytes) cannot all start on 16 bytes, whatever the pointer.
  const std::string rows = cuda_for(256, 256, 100, 0x1000);
  EXPECT_TRUE(file_check(rows, "CHECK: o1 + 32 <= 100 && (int64_t(100) * 2) % 16 == 0) {")) << rows;
}

TEST(Specialization, WholeTilesOfGlobalLoadsAndStoresMoveWithoutTests) {
  Kernel<examples::VectorAdd> kernel(Device::simulator(), KernelOptions{"sm_80"});
  float* aligned = reinterpret_cast<float*>(0x1000);
  const std::string src = kernel.cuda_source(4096, aligned, aligned, aligned);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // load_global
    CHECK: if (o0 >= 0 && o0 + 2048 <= n) {
    CHECK: float* thread_p = tile + (
    CHECK: tessel_load_vec<float, 4>(&r[0], p);
    CHECK: float* p = thread_p + (int64_t(512) * 1);
    CHECK: } else {
    CHECK: // store_global
    CHECK: if (o0 >= 0 && o0 + 2048 <= n) {
    CHECK: tessel_store_vec<float, 4>(p, &r_2[0]);
  )")) << src;
  float* misaligned = reinterpret_cast<float*>(0x1004);
  const std::string general = kernel.cuda_source(4096, misaligned, aligned, aligned);
  EXPECT_TRUE(
      file_check(general, "CHECK: if (o0 >= 0 && o0 + 2048 <= n && reinterpret_cast<uint64_t>(tile) % 16 == 0) {"))
      << general;
}

TEST(Specialization, ACallBreakingAFactGetsAVariantOfItsOwn) {
  Kernel<MatmulV5Swizzled<f16>> kernel(Device::simulator());
  for (int offset : {0, 1, 0, 3}) check_matmul_at_offset(kernel, Device::simulator(), 70, 45, 40, offset);
  // Different facts: different code, under different keys.
  EXPECT_NE(kernel.cuda_source(64, 64, 64, address(0x1000), address(0x1000), address(0x1000)),
            kernel.cuda_source(64, 64, 64, address(0x1002), address(0x1000), address(0x1000)));
}

}  // namespace
}  // namespace tessel::testing
