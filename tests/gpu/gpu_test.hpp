// The base of every GPU test: skips itself, visibly, where no GPU is present.
#pragma once

#include <gtest/gtest.h>

#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::testing {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& d = runtime::CudaDriver::get();
    if (!d.available()) GTEST_SKIP() << "no GPU: " << d.unavailable_reason();
  }
};

}  // namespace tessel::testing
