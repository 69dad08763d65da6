#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// Greedy decoding's next token: the first largest logit of each row of [rows, vocab] bf16 logits,
// and its position. One row per block over all its warps, a chunk of the row at a time: each
// chunk's largest logit and its position come from one reduction of (value, position) pairs
// (max_and_argmax), and a later chunk replaces the running best only with a larger logit, so ties
// keep the first position. Positions past the vocabulary read as NaN, which loses to every logit.
struct GreedySampling : Script {
  int warps = 8;
  int chunk = 4096;

  static constexpr const char* param_names[] = {"rows", "vocab", "logits", "tokens", "best"};
  static Space space() {
    return tune("warps", &GreedySampling::warps, {8, 4, 16}) * tune("chunk", &GreedySampling::chunk, {4096, 8192});
  }
  void operator()(Int32 rows, Int32 vocab, Ptr<bf16> logits, Ptr<int32_t> tokens, Ptr<float> best) {
    attrs.blocks = rows;
    attrs.warps = warps;
    auto g = global_view(logits, {rows, vocab});
    const Layout row = Layout::local({1, chunk / (warps * 32 * 8)}) * Layout::spatial({1, warps * 32}) *
                       Layout::local({1, 8});  // 16 bytes a thread a load
    const auto chunk_at = [&](const Int32& k0) {
      return load_global(g, {blockIdx.x, k0}, {1, chunk}, row, NAN).to<float>();
    };
    auto [value, position] = max_and_argmax(chunk_at(0), 1);
    for (Int32 k0 : range(chunk, vocab, chunk)) {
      auto [v, p] = max_and_argmax(chunk_at(k0), 1);
      auto larger = v > value;
      position = where(larger, p + k0, position);
      value = where(larger, v, value);
    }
    store_global(global_view(tokens, {rows, 1}), position, {blockIdx.x, 0});
    store_global(global_view(best, {rows, 1}), value, {blockIdx.x, 0});
  }
};

}  // namespace tessel::examples
