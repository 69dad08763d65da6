// A kernel that marks timeline regions (trace_region): each warp of Blocks blocks of Warps warps
// marks its load of a row of Columns floats and its store of the row plus one. Run with a trace by
// tests/timeline_test.cpp (the simulator) and tests/gpu/timeline_gpu_test.cpp (the GPU).
#pragma once

#include "tessel/tessel.hpp"

namespace tessel::testing {

template <int Blocks, int Warps, int Columns> struct MarksRegions : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = Blocks;
    attrs.warps = Warps;
    auto view = global_view(x, {Blocks, Columns});
    RegisterTensor t;
    trace_region("load", [&] { t = load_global(view, {blockIdx.x, 0}, {1, Columns}); });
    sync();  // the warps hold the row's elements together: every load before any store
    trace_region("store", [&] { store_global(view, t + 1.0f, {blockIdx.x, 0}); });
  }
};

}  // namespace tessel::testing
