#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// y = softmax(x) along rows too wide for the registers of one block (tens of thousands of
// columns): each row is spread over a cluster of `blocks` blocks, each holding a slice of it in
// registers, so that x is read once and y written once. The blocks combine their slices' maxima,
// then their sums, through distributed shared memory, with one cluster.sync() each: the maxima
// are pulled (each block writes its own, and after the sync, when every block of the cluster is
// known to run, reads the others'), the sums pushed (each block writes its sum into every block's
// `parts`, and after the sync reads its own), so that no block reads another's shared memory after
// the last sync and any may end.
struct ClusterRowSoftmax : Script {
  int warps = 16;
  int blocks = 4;  // per row: the cluster's size

  static constexpr const char* param_names[] = {"n_rows", "n_cols", "x", "y"};
  static Space space() {
    return tune("warps", &ClusterRowSoftmax::warps, {16, 8, 32}) *
           tune("blocks", &ClusterRowSoftmax::blocks, {4, 8, 2});
  }
  void operator()(Int32 n_rows, int n_cols, Ptr<float> x, Ptr<float> y) {
    const int threads = warps * 32;
    const int slice = cdiv(n_cols, blocks * threads * 4) * threads * 4;
    attrs.blocks = {blocks, n_rows};
    attrs.cluster = {blocks};
    attrs.warps = warps;
    const Layout row =
        Layout::local({1, slice / (threads * 4)}) * Layout::spatial({1, threads}) * Layout::local({1, 4});
    auto parts = shared_tensor<float>({2, blocks});
    Int32 first = cluster.blockRank * slice;
    // Padding reads as -inf, so it contributes exp(-inf) = 0 to the sum.
    auto t = load_global(global_view(x, {n_rows, n_cols}), {blockIdx.y, first}, {1, slice}, row, -INFINITY);
    // A reduction's [1, 1] result is in every thread (item() reads it); one thread writes it.
    Expr<float> slice_max = max(t, 1).item<float>();
    single_thread([&] { store_shared(parts, register_tensor<float>({1, 1}, slice_max), {0, cluster.blockRank}); });
    cluster.sync();
    auto row_max = load_shared(parts.remote(0), {0, 0}, {1, 1});
    for (int peer = 1; peer < blocks; ++peer)
      row_max = maximum(row_max, load_shared(parts.remote(peer), {0, peer}, {1, 1}));
    auto e = exp(t - row_max);
    Expr<float> slice_sum = sum(e, 1).item<float>();
    single_thread([&] {
      auto mine = register_tensor<float>({1, 1}, slice_sum);
      for (int peer = 0; peer < blocks; ++peer) store_shared(parts.remote(peer), mine, {1, cluster.blockRank});
    });
    cluster.sync();
    auto total = sum(load_shared(parts, {1, 0}, {1, blocks}), 1);
    store_global(global_view(y, {n_rows, n_cols}), e * (1.0f / total), {blockIdx.y, first});
  }
};

}  // namespace tessel::examples
