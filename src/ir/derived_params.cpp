#include "tessel/ir/derived_params.hpp"

#include "tessel/ir/fast_divmod.hpp"

namespace tessel::ir {

void compute_derived_params(const KernelNode& k, int multiprocessors, std::span<Scalar> values) {
  TESSEL_CHECK(values.size() == k.params.size(), "kernel {}: {} values for {} parameters", k.name, values.size(),
               k.params.size());
  const size_t call = k.call_params();
  for (size_t i = 0; i < k.derived_params.size(); ++i) {
    const DerivedParam& p = k.derived_params[i];
    const auto positive_divisor = [&] {
      const int64_t d = evaluate_at_launch(*p.source, k, values.first(call), multiprocessors).i;
      if (d <= 0)
        throw Error(p.loc, fmt::format("fast_divmod: the divisor is {} at this launch of kernel {}; it must be "
                                       "positive (divide with / and % where it can be 0 or negative)",
                                       d, k.name));
      return d;
    };
    Scalar& out = values[call + i];
    switch (p.value) {
      case DerivedValue::Divisor: out.i = positive_divisor(); break;
      case DerivedValue::Multiplier: out.i = divisor_magic(uint32_t(positive_divisor())).multiplier; break;
      case DerivedValue::Log2: out.i = divisor_magic(uint32_t(positive_divisor())).log2; break;
      case DerivedValue::Multiprocessors: out.i = multiprocessors; break;
      case DerivedValue::Scratch:
      case DerivedValue::ZeroedScratch:
      case DerivedValue::TraceBuffer: break;  // the launch's own buffers
    }
  }
}

int64_t scratch_bytes(const KernelNode& k, const DerivedParam& p, std::span<const Scalar> values, int multiprocessors) {
  TESSEL_CHECK(p.is_scratch(), "kernel {}: parameter {} is not a scratch buffer", k.name, p.param->name);
  const int64_t bytes = evaluate_at_launch(*p.source, k, values.first(k.call_params()), multiprocessors).i;
  if (bytes < 0)
    throw Error(p.loc, fmt::format("global_scratch: the shape gives {} bytes at this launch of kernel {}; every "
                                   "extent must be at least 0",
                                   bytes, k.name));
  return bytes;
}

}  // namespace tessel::ir
