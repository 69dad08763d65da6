// Verifier rules and effects (tessel/ir/effects.hpp) of the warp instructions: shuffles, votes and
// relayouts.
#include <fmt/ranges.h>

#include "verification.hpp"

namespace tessel::ir {

std::string_view shuffle_name(ShuffleMode m) {
  switch (m) {
    case ShuffleMode::Index: return "shuffle";
    case ShuffleMode::Xor: return "shuffle_xor";
    case ShuffleMode::Up: return "shuffle_up";
    case ShuffleMode::Down: return "shuffle_down";
  }
  return "?";
}

int shuffle_source(ShuffleMode m, int lane, int64_t arg) {
  int64_t source = lane;
  switch (m) {
    case ShuffleMode::Index: return int(arg & 31);
    case ShuffleMode::Xor: source = lane ^ arg; break;
    case ShuffleMode::Up: source = lane - arg; break;
    case ShuffleMode::Down: source = lane + arg; break;
  }
  return source < 0 || source > 31 ? lane : int(source);
}

std::string_view vote_name(VoteMode m) {
  switch (m) {
    case VoteMode::Ballot: return "ballot";
    case VoteMode::Any: return "any";
    case VoteMode::All: return "all";
  }
  return "?";
}

std::optional<std::vector<RelayoutSource>> shuffle_sources(const RelayoutNode& n) {
  const Layout &from = n.a->layout, &to = n.out->layout;
  const int local = to.local_size();
  std::vector<RelayoutSource> sources(size_t(to.num_threads()) * size_t(local));
  for (int t = 0; t < to.num_threads(); ++t)
    for (int l = 0; l < local; ++l) {
      const std::vector<int> c = to.coords(t, l);
      RelayoutSource& s = sources[size_t(t) * size_t(local) + size_t(l)];
      s.thread = -1;
      for (int candidate = t; candidate < t + 32 && s.thread < 0; ++candidate) {
        const int u = t / 32 * 32 + candidate % 32;  // t itself first, then the rest of its warp
        if (from.holds(u, c, &s.slot)) s.thread = u;
      }
      if (s.thread < 0) return std::nullopt;
      const RelayoutSource& first_warp = sources[size_t(t % 32) * size_t(local) + size_t(l)];
      if (s.thread - t != first_warp.thread - t % 32 || s.slot != first_warp.slot) return std::nullopt;
    }
  return sources;
}

void verify_Shuffle(Verification& v, const ShuffleNode& n) {
  TESSEL_CHECK(
      (n.result != nullptr) == (n.value.scalar != nullptr) && (n.out != nullptr) == (n.value.tensor != nullptr),
      "{} at {} gives a scalar's result to a tile or a tile's to a scalar", shuffle_name(n.mode), n.loc.str());
  TESSEL_CHECK(n.lane->type.dtype == DType::I32 && !n.lane->type.pointer, "{} at {} takes an i32 lane",
               shuffle_name(n.mode), n.loc.str());
  v.use(n.value, n);
  if (n.out) v.define(n.out, n);
}

void verify_Vote(Verification&, const VoteNode& n) {
  const DType want = n.mode == VoteMode::Ballot ? DType::U32 : DType::Bool;
  TESSEL_CHECK(n.predicate->type.dtype == DType::Bool && n.result && n.result->type.dtype == want,
               "{} at {} does not turn a predicate into a {}", vote_name(n.mode), n.loc.str(), dtype_name(want));
}

void verify_Relayout(Verification& v, const RelayoutNode& n) {
  TESSEL_CHECK(n.out->shape() == n.a->shape() && n.out->dtype == n.a->dtype && !is_packed(n.a->dtype),
               "convert_layout at {} changes more than the layout", n.loc.str());
  if (n.scratch) {
    const int slots = relayout_scratch_slots(n.a->layout.num_elements(), n.a->shape().back(), n.a->dtype);
    TESSEL_CHECK(!n.scratch->root && n.scratch->dtype == n.a->dtype && n.scratch->shape == std::vector<int>{slots},
                 "the scratch of the convert_layout at {} is not an allocation of its tile's elements", n.loc.str());
    check_group_barrier(v, n.barrier, n);
  }
  v.use(n.a, n);
  v.define(n.out, n);
}

// Shuffles and votes exchange registers within a warp; a relayout across warps touches only its own
// scratch, between barriers of its group, as a reduction across warps does.
Effects effects_of(const ShuffleNode&) { return {}; }
Effects effects_of(const VoteNode&) { return {}; }
Effects effects_of(const RelayoutNode&) { return {}; }

}  // namespace tessel::ir
