// The consumer's kernel: out = alpha * x + y over n floats; each block handles `block` of them.
#pragma once

#include "tessel/tessel.hpp"

struct Axpy : tessel::Script {
  int block = 1024;
  static tessel::Space space() { return tessel::tune("block", &Axpy::block, {1024, 512}); }
  static constexpr const char* param_names[] = {"n", "alpha", "x", "y", "out"};
  void operator()(tessel::Int32 n, tessel::Float32 alpha, tessel::Ptr<float> x, tessel::Ptr<float> y,
                  tessel::Ptr<float> out) {
    attrs.blocks = cdiv(n, block);
    attrs.warps = 4;
    tessel::Int32 offset = blockIdx.x * block;
    auto rx = load_global(global_view(x, {n}), {offset}, {block});
    auto ry = load_global(global_view(y, {n}), {offset}, {block});
    store_global(global_view(out, {n}), alpha * rx + ry, {offset});
  }
};
