// The registration shared by the attention ladder: sizes [batch heads kv_heads seq_q seq_k head_dim
// causal], random inputs in which every seventh query row is large enough that its logits overflow
// an unshifted exp, poisoned outputs, and a host reference with the softmax in double precision.
#pragma once

#include <cmath>

#include "examples.hpp"

namespace tessel::examples {

// Attention's arguments for sizes `s`, with `q`, `k`, `v`, `o` and `lse` as given (null for the
// commands that only build the kernel).
template <class T, class P, class L> auto attention_arguments(const cli::Sizes& s, P q, P k, P v, P o, L lse) {
  return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), int(s[3]), int(s[4]), int(s[5]), s[6] != 0,
                         float(1.0 / std::sqrt(double(s[5]))), q, k, v, o, lse);
}

// O and the log-sum-exp of softmax(Q Kᵀ · scale) V, in double precision.
template <class T> void attention_reference(const cli::Sizes& s, const std::vector<T>& q, const std::vector<T>& k,
                                            const std::vector<T>& v, std::vector<float>& o, std::vector<float>& lse) {
  const int64_t batch = s[0], heads = s[1], kv_heads = s[2], seq_q = s[3], seq_k = s[4], d = s[5];
  const bool causal = s[6] != 0;
  const double scale = 1.0 / std::sqrt(double(d));
  o.assign(size_t(batch * heads * seq_q * d), 0.0f);
  lse.assign(size_t(batch * heads * seq_q), 0.0f);
  std::vector<double> logits(static_cast<size_t>(seq_k)), row(static_cast<size_t>(d));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t kvh = b * kv_heads + h / (heads / kv_heads), qh = b * heads + h;
      for (int64_t i = 0; i < seq_q; ++i) {
        const int64_t keys = causal ? std::min(seq_k, i + 1) : seq_k;
        double m = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += double(float(q[size_t((qh * seq_q + i) * d + c)])) *
                   double(float(k[size_t((kvh * seq_k + j) * d + c)]));
          logits[size_t(j)] = dot * scale;
          m = std::max(m, logits[size_t(j)]);
        }
        double l = 0;
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t j = 0; j < keys; ++j) {
          const double p = std::exp(logits[size_t(j)] - m);
          l += p;
          for (int64_t c = 0; c < d; ++c) row[size_t(c)] += p * double(float(v[size_t((kvh * seq_k + j) * d + c)]));
        }
        for (int64_t c = 0; c < d; ++c) o[size_t((qh * seq_q + i) * d + c)] = float(row[size_t(c)] / l);
        lse[size_t(qh * seq_q + i)] = float(m + std::log(l));
      }
    }
}

template <class S, class T> KernelEntry attention_example(std::string name, std::string description) {
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "causal"};
  e.default_sizes = {1, 4, 2, 150, 170, 64, 1};
  e.smallest_sizes = {1, 1, 1, 1, 1, 16, 0};
  e.runner = [label = e.name](const Device& dev, const cli::Sizes& s, const KernelOptions& opt) {
    const size_t q_size = size_t(s[0] * s[1] * s[3] * s[5]), kv_size = size_t(s[0] * s[2] * s[4] * s[5]);
    std::vector<T> q = random_vector<T>(q_size, 11), k = random_vector<T>(kv_size, 12);
    const std::vector<T> v = random_vector<T>(kv_size, 13);
    for (size_t row = 0; row * size_t(s[5]) < q_size; row += 7)
      for (size_t c = 0; c < size_t(s[5]); ++c)
        q[row * size_t(s[5]) + c] = T(float(q[row * size_t(s[5]) + c]) * 300.0f);
    Buffer<T> dq(dev, q), dk(dev, k), dv(dev, v), dout(dev, poisoned<T>(q_size));
    Buffer<float> dlse(dev, poisoned<float>(size_t(s[0] * s[1] * s[3])));
    Kernel<S> kernel(dev, opt);
    std::apply([&](auto... a) { kernel(a...); },
               attention_arguments<T>(s, dq.data(), dk.data(), dv.data(), dout.data(), dlse.data()));
    dev.synchronize();
    std::vector<float> want_o, want_lse;
    attention_reference(s, q, k, v, want_o, want_lse);
    const std::string sizes = fmt::format("{} batch {}, {} heads ({} for K and V), seq {}x{}, d {}{}", label, s[0],
                                          s[1], s[2], s[3], s[4], s[5], s[6] ? ", causal" : "");
    RunResult r = compare(dout.download(), want_o, 4e-3, 1e-2, sizes + " O");
    const RunResult r_lse = compare(dlse.download(), want_lse, 2e-3, 1e-4, "log-sum-exp");
    r.ok = r.ok && r_lse.ok;
    r.max_error = std::max(r.max_error, r_lse.max_error);
    r.summary += "; " + r_lse.summary;
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const cli::Sizes& s) {
    T* p = nullptr;
    float* f = nullptr;
    return attention_arguments<T>(s, p, p, p, p, f);
  });
  return e;
}

}  // namespace tessel::examples
