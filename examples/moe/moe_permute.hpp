// A mixture of experts' token movement around its expert GEMMs, by gathers of rows
// (load_global_gather): the tokens' rows into their experts' order, and the experts' output rows
// back to their tokens, weighted by the router and summed over each token's top k experts.
#pragma once

#include "tessel/tessel.hpp"

namespace tessel::examples {

// permuted[i, :] = x[source[i], :] for the rows of `hidden` bf16 elements: a token's row once for
// each expert that takes it, in the experts' order. A source of -1 (a row that pads an expert's
// group) gives a zero row. A block moves block_rows rows of block_cols columns; each row's source is
// the same along it, so every thread moves runs of 8 elements (16 bytes) at a time.
struct MoePermute : Script {
  int block_rows = 16;
  int block_cols = 512;
  int warps = 4;

  static Space space() {
    return tune("block_rows, block_cols", {&MoePermute::block_rows, &MoePermute::block_cols},
                {{8, 512}, {16, 512}, {16, 1024}, {32, 256}, {32, 512}}) *
           tune("warps", &MoePermute::warps, {4, 8});
  }

  static constexpr const char* param_names[] = {"tokens", "rows", "hidden", "x", "source", "permuted"};
  void operator()(Int32 tokens, Int32 rows, Int32 hidden, Ptr<bf16> x, Ptr<int32_t> source, Ptr<bf16> permuted) {
    attrs.blocks = {cdiv(hidden, block_cols), cdiv(rows, block_rows)};
    attrs.warps = warps;
    const Int32 row = blockIdx.y * block_rows, column = blockIdx.x * block_cols;
    auto from = load_global(global_view(source, {rows, 1}), {row, 0}, {block_rows, 1}, Layout{}, -1);
    auto moved = load_global_gather(global_view(x, {tokens, hidden}), 0, from, {0, column}, {block_rows, block_cols});
    store_global(global_view(permuted, {rows, hidden}), moved, {row, column});
  }
};

// y[t, :] = Σ_j weight[t, j] · expert_out[place[t, j], :] over a token's top_k experts, in f32 and
// rounded to bf16 once: the rows that MoePermute moved out, back to their token after the experts'
// GEMMs. place and weight are [tokens, top_k]. top_k is a compile-time value (a kernel for each), so
// every expert's indices and rows are loaded before the first sum needs them: a loop over a run-time
// count would make each gather wait for the last one's multiply-add. The indices all load first, so
// that the gathers wait for them once; and the rows stay bf16 until every gather is issued, since a
// conversion right after its gather would wait for that gather's data before the next one issues
// (each gather branches on its rows' bounds, and the compiler schedules no load across a branch).
struct MoeUnpermute : Script {
  int block_rows = 16;
  int block_cols = 512;
  int warps = 4;
  // Each thread holds its rows of every expert at once: the registers of 3 or 4 blocks a
  // multiprocessor, rather than the compiler's choice, keep more gathers in flight where that is
  // many registers (the element-wise path of rows whose width is not known to be a multiple of 8,
  // or wide tiles; the tuner took 4 for 8 x 512 tiles at top 2 on an H200).
  int resident_blocks = 0;

  static Space space() {
    return tune("block_rows, block_cols", {&MoeUnpermute::block_rows, &MoeUnpermute::block_cols},
                {{8, 512}, {16, 512}, {16, 1024}, {32, 256}, {8, 256}}) *
           tune("warps", &MoeUnpermute::warps, {4, 8}) *
           tune("resident_blocks", &MoeUnpermute::resident_blocks, {0, 3, 4});
  }

  static constexpr const char* param_names[] = {"tokens",     "rows",  "hidden", "top_k",
                                                "expert_out", "place", "weight", "y"};
  void operator()(Int32 tokens, Int32 rows, Int32 hidden, int top_k, Ptr<bf16> expert_out, Ptr<int32_t> place,
                  Ptr<float> weight, Ptr<bf16> y) {
    if (top_k < 1) throw Error(fmt::format("MoeUnpermute: top_k is {}; a token takes at least one expert", top_k));
    attrs.blocks = {cdiv(hidden, block_cols), cdiv(tokens, block_rows)};
    attrs.warps = warps;
    attrs.resident_blocks = resident_blocks;
    const Int32 token = blockIdx.y * block_rows, column = blockIdx.x * block_cols;
    auto g_out = global_view(expert_out, {rows, hidden});
    auto g_place = global_view(place, {tokens, top_k});
    auto g_weight = global_view(weight, {tokens, top_k});
    std::vector<RegisterTensor> places, weights, rows_of_experts;
    for (int j = 0; j < top_k; ++j) {
      places.push_back(load_global(g_place, {token, j}, {block_rows, 1}, Layout{}, -1));
      weights.push_back(load_global(g_weight, {token, j}, {block_rows, 1}));
    }
    for (int j = 0; j < top_k; ++j)
      rows_of_experts.push_back(load_global_gather(g_out, 0, places[size_t(j)], {0, column}, {block_rows, block_cols}));
    auto sum = register_tensor<float>({block_rows, block_cols}, 0.0f);
    for (int j = 0; j < top_k; ++j) sum = fma(rows_of_experts[size_t(j)].to<float>(), weights[size_t(j)], sum);
    store_global(global_view(y, {tokens, hidden}), sum.to<bf16>(), {token, column});
  }
};

}  // namespace tessel::examples
