#include "moe_permute.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "examples.hpp"

namespace tessel::examples {

namespace {

// The permute's routing is top 2 of 8 experts, as Mixtral's; the unpermute's top k of 4k experts,
// for any k (2 as Mixtral's, 8 as DeepSeek-V3's).
constexpr int kPermuteTopK = 2, kExpertsPerChoice = 4, kGroupRows = 4;

// A router's choice for `tokens` tokens: each takes top_k distinct experts of kExpertsPerChoice *
// top_k; the rows of each expert's group follow one another, each group padded to a multiple of kGroupRows with
// rows of no token (-1). source[r] is row r's token; place[t * top_k + j] is the row of token t's
// j-th expert.
struct Routing {
  std::vector<int32_t> source, place;
};

Routing route(int tokens, int top_k, uint64_t seed) {
  const int experts = kExpertsPerChoice * top_k;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::pair<int, int>>> groups(static_cast<size_t>(experts));  // (token, j) by expert
  for (int t = 0; t < tokens; ++t) {
    std::vector<int> chosen(static_cast<size_t>(experts));
    std::iota(chosen.begin(), chosen.end(), 0);
    std::shuffle(chosen.begin(), chosen.end(), rng);
    for (int j = 0; j < top_k; ++j) groups[size_t(chosen[size_t(j)])].push_back({t, j});
  }
  Routing r;
  r.place.assign(size_t(tokens) * size_t(top_k), -1);
  for (const auto& group : groups) {
    for (const auto& [t, j] : group) {
      r.place[size_t(t) * size_t(top_k) + size_t(j)] = int32_t(r.source.size());
      r.source.push_back(t);
    }
    while (r.source.size() % kGroupRows != 0) r.source.push_back(-1);
  }
  return r;
}

KernelEntry moe_permute_example() {
  KernelEntry e;
  e.name = "moe_permute";
  e.description = "a mixture of experts' token rows (bf16) gathered into their experts' order, top-2 of 8 experts";
  e.size_names = {"tokens", "hidden"};
  e.default_sizes = {100, 768};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int tokens = int(s[0]), hidden = int(s[1]);
    const Routing routing = route(tokens, kPermuteTopK, 11);
    const int rows = int(routing.source.size());
    auto x = random_vector<bf16>(size_t(tokens) * hidden, 12, -4.0f, 4.0f);
    Buffer<bf16> dx(dev, x), permuted(dev, poisoned<bf16>(size_t(rows) * hidden));
    Buffer<int32_t> source(dev, routing.source);
    Kernel<MoePermute> k(dev, opt);
    k(tokens, rows, hidden, dx, source, permuted);
    dev.synchronize();
    std::vector<float> want(size_t(rows) * hidden, 0.0f);
    for (int r = 0; r < rows; ++r)
      if (const int t = routing.source[size_t(r)]; t >= 0)
        for (int c = 0; c < hidden; ++c) want[size_t(r) * hidden + c] = float(x[size_t(t) * hidden + c]);
    RunResult result = compare(permuted.download(), want, 0, 0, fmt::format("moe_permute {}x{}", tokens, hidden));
    result.stats = k.stats();
    return result;
  };
  add_introspection<MoePermute>(e, [](const std::vector<int64_t>& s) {
    bf16* p = nullptr;
    int32_t* i = nullptr;
    const int rows = int(route(int(s[0]), kPermuteTopK, 11).source.size());
    return std::make_tuple(int(s[0]), rows, int(s[1]), p, i, p);
  });
  return e;
}

KernelEntry moe_unpermute_example() {
  KernelEntry e;
  e.name = "moe_unpermute";
  e.description = "the experts' output rows (bf16) back to their tokens, weighted and summed over the top k of 4k";
  e.size_names = {"tokens", "hidden", "top_k"};
  e.default_sizes = {100, 768, 2};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int tokens = int(s[0]), hidden = int(s[1]), top_k = int(s[2]);
    const Routing routing = route(tokens, std::max(top_k, 1), 13);
    const int rows = int(routing.source.size());
    auto out = random_vector<bf16>(size_t(rows) * hidden, 14, -4.0f, 4.0f);
    auto weight = random_vector<float>(size_t(tokens) * size_t(std::max(top_k, 1)), 15, 0.0f, 1.0f);
    Buffer<bf16> dout(dev, out), y(dev, poisoned<bf16>(size_t(tokens) * hidden));
    Buffer<int32_t> place(dev, routing.place);
    Buffer<float> dweight(dev, weight);
    Kernel<MoeUnpermute> k(dev, opt);
    k(tokens, rows, hidden, top_k, dout, place, dweight, y);
    dev.synchronize();
    // The kernel's sum, one fused multiply-add per expert in order, rounded to bf16 once.
    std::vector<float> want(size_t(tokens) * hidden);
    for (int t = 0; t < tokens; ++t)
      for (int c = 0; c < hidden; ++c) {
        float sum = 0;
        for (int j = 0; j < top_k; ++j) {
          const size_t choice = size_t(t) * size_t(top_k) + size_t(j);
          sum = std::fma(float(out[size_t(routing.place[choice]) * hidden + c]), weight[choice], sum);
        }
        want[size_t(t) * hidden + c] = float(bf16(sum));
      }
    RunResult result =
        compare(y.download(), want, 0, 0, fmt::format("moe_unpermute {}x{}, top {}", tokens, hidden, top_k));
    result.stats = k.stats();
    return result;
  };
  add_introspection<MoeUnpermute>(e, [](const std::vector<int64_t>& s) {
    bf16* p = nullptr;
    int32_t* i = nullptr;
    float* f = nullptr;
    const int top_k = int(s[2]);
    const int rows = int(route(int(s[0]), std::max(top_k, 1), 13).source.size());
    return std::make_tuple(int(s[0]), rows, int(s[1]), top_k, p, i, f, p);
  });
  return e;
}

}  // namespace

std::vector<KernelEntry> moe_examples() { return {moe_permute_example(), moe_unpermute_example()}; }

}  // namespace tessel::examples
