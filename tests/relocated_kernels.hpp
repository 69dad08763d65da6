// One tuned axpy written twice, at different lines, as if lines had been added above it, and once
// with its body edited (x + x in place of 2 x, the same values). Namespaces do not name kernels, so
// all three are kernel TunedAxpy to the caches: only their source locations, or their code, differ.
#pragma once

#include "tessel/tessel.hpp"

#define TESSEL_TEST_AXPY(TWO_X)                                                                              \
  struct TunedAxpy : tessel::Script {                                                                        \
    int block = 128;                                                                                         \
    static tessel::Space space() { return tessel::tune("block", &TunedAxpy::block, {2048, 128, 256, 512}); } \
    void operator()(tessel::Int32 n, tessel::Ptr<float> x, tessel::Ptr<float> y, tessel::Ptr<float> z) {     \
      attrs.blocks = tessel::cdiv(n, block);                                                                 \
      attrs.warps = block / 32;                                                                              \
      auto rx = load_global(global_view(x, {n}), {blockIdx.x * block}, {block});                             \
      auto ry = load_global(global_view(y, {n}), {blockIdx.x * block}, {block});                             \
      store_global(global_view(z, {n}), TWO_X + ry, {blockIdx.x * block});                                   \
    }                                                                                                        \
  };

namespace tessel::testing::written_here {
TESSEL_TEST_AXPY(rx * 2.0f)
}

namespace tessel::testing::written_lower {

TESSEL_TEST_AXPY(rx * 2.0f)
}

namespace tessel::testing::edited {
TESSEL_TEST_AXPY(rx + rx)
}
