// Verifier rules and effects (tessel/ir/effects.hpp) of the warp instructions: shuffles and votes.
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

// Shuffles and votes exchange registers within a warp; they touch no memory.
Effects effects_of(const ShuffleNode&) { return {}; }
Effects effects_of(const VoteNode&) { return {}; }

}  // namespace tessel::ir
