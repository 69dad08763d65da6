#include "greedy_sampling.hpp"

#include "examples.hpp"

namespace tessel::examples {

KernelEntry greedy_sampling_example() {
  KernelEntry e;
  e.name = "greedy_sampling";
  e.description = "the first largest logit of each row of [rows, vocab] bf16 logits and its position";
  e.size_names = {"rows", "vocab"};
  e.default_sizes = {37, 32000};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int rows = int(s[0]), vocab = int(s[1]);
    // Logits on a grid of quarters, so that a row's largest value repeats and the first must win.
    std::vector<bf16> logits;
    for (float v : random_vector<float>(size_t(rows) * size_t(vocab), 7, -6.0f, 6.0f))
      logits.push_back(bf16(std::round(v * 4.0f) / 4.0f));
    std::vector<int32_t> want_tokens(static_cast<size_t>(rows));
    std::vector<float> want_best(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      int at = 0;
      for (int i = 1; i < vocab; ++i)
        if (float(logits[size_t(r) * vocab + i]) > float(logits[size_t(r) * vocab + at])) at = i;
      want_tokens[size_t(r)] = at;
      want_best[size_t(r)] = float(logits[size_t(r) * vocab + at]);
    }
    Buffer<bf16> dl(dev, logits);
    Buffer<int32_t> dt(dev, std::vector<int32_t>(size_t(rows), -1));
    Buffer<float> db(dev, poisoned<float>(size_t(rows)));
    Kernel<GreedySampling> k(dev, opt);
    k(rows, vocab, dl, dt, db);
    dev.synchronize();
    RunResult r = cli::compare_exact(dt.download(), want_tokens, fmt::format("greedy_sampling {}x{}", rows, vocab));
    const RunResult values = compare(db.download(), want_best, 0.0, 0.0, "largest logits");
    if (!values.ok) r = values;
    r.stats = k.stats();
    return r;
  };
  add_introspection<GreedySampling>(e, [](const std::vector<int64_t>& s) {
    return std::make_tuple(int32_t(s[0]), int32_t(s[1]), (bf16*)nullptr, (int32_t*)nullptr, (float*)nullptr);
  });
  return e;
}

}  // namespace tessel::examples
