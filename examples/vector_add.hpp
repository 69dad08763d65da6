#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// c = a + b over n floats; each block handles `block` elements.
struct VectorAdd : Script {
  int block = 2048;
  int warps = 4;

  static Space space() {
    return tune("block", &VectorAdd::block, {2048, 4096}) * tune("warps", &VectorAdd::warps, {4, 8});
  }

  static constexpr const char* param_names[] = {"n", "a", "b", "c"};
  void operator()(Int32 n, Ptr<float> a, Ptr<float> b, Ptr<float> c) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = warps;
    Int32 offset = blockIdx.x * block;
    auto ra = load_global(global_view(a, {n}), {offset}, {block});
    auto rb = load_global(global_view(b, {n}), {offset}, {block});
    store_global(global_view(c, {n}), ra + rb, {offset});
  }
};

}  // namespace tessel::examples
