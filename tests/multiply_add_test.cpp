// f32 multiply-adds on the simulator: a product read only by a sum or difference is contracted
// into one fma (contract_multiply_adds), one read elsewhere too is rounded on its own.
#include "filecheck.hpp"
#include "multiply_add_kernels.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(MultiplyAdds, AProductReadOnlyByASumIsOneFmaAndAnyOtherRoundsOnItsOwn) {
  EXPECT_GT(check_multiply_adds(Device::simulator()), 500);
}

TEST(MultiplyAdds, TheContractionIsInTheIr) {
  Kernel<MultiplyAdds> k(Device::simulator());
  float* p = nullptr;
  EXPECT_TRUE(file_check(ir::print(*k.lowered(1.0f, p, p, p, p, p, p, p, p, p)), R"(
    CHECK: = fma(%r, %r.1, %r.2)
    CHECK: = neg(%r.2)
    CHECK: = fma(%r, %r.1, %r.4)
    CHECK: = fma(%r, neg(%arg0), %r.2)
    CHECK: = mul(%r, %r.1)
    CHECK: = add(%r.7, %r.2)
    CHECK: = mul(%r, %r.2)
    CHECK: = fma(%r, %r.1, %r.9)
  )"));
}

}  // namespace
}  // namespace tessel::testing
