// The warp instructions: shuffles (__shfl_*_sync) and votes (__ballot_sync, __any_sync,
// __all_sync), over the whole warp.
#include "emitter.hpp"

namespace tessel::codegen {

namespace {

const char* shuffle_intrinsic(ir::ShuffleMode m) {
  switch (m) {
    case ir::ShuffleMode::Index: return "__shfl_sync";
    case ir::ShuffleMode::Xor: return "__shfl_xor_sync";
    case ir::ShuffleMode::Up: return "__shfl_up_sync";
    case ir::ShuffleMode::Down: return "__shfl_down_sync";
  }
  return "?";
}

// `v` (of storage type `t`) as another lane holds it: the 16- and 8-bit float types travel as
// their bits, the narrow integers and bool as int.
std::string shuffled(ir::ShuffleMode m, DType t, const std::string& v, const std::string& lane) {
  const auto call = [&](const std::string& x) {
    return fmt::format("{}(0xffffffffu, {}, {})", shuffle_intrinsic(m), x, lane);
  };
  if (stored_as_bits(t))
    return from_bits_expr(t, fmt::format("(unsigned short){}", call(fmt::format("(unsigned)({})", bits_expr(t, v)))));
  if (t == DType::Bool) return fmt::format("({} != 0)", call(fmt::format("int({})", v)));
  if (dtype_bytes(t) < 4) return fmt::format("{}({})", c_type(t), call(fmt::format("int({})", v)));
  return call(v);
}

}  // namespace

void emit_Shuffle(Emitter& e, const ir::ShuffleNode& n) {
  e.header(n, fmt::format("warp.{}", ir::shuffle_name(n.mode)));
  const std::string lane = e.expr(n.lane);
  if (n.result) {
    const DType t = n.value.scalar->type.dtype;
    return e.line(fmt::format("{} = {};", e.expr(n.result), shuffled(n.mode, t, e.expr(n.value.scalar), lane)));
  }
  e.declare_tile(n.out);
  e.open("");
  e.line(fmt::format("const int lane_arg = {};", lane));
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n.out->layout.local_size(), e.tile(n.out),
                     shuffled(n.mode, n.out->dtype, fmt::format("{}[l]", e.tile(n.value.tensor)), "lane_arg")));
  e.close();
}

void emit_Vote(Emitter& e, const ir::VoteNode& n) {
  e.header(n, fmt::format("warp.{}", ir::vote_name(n.mode)));
  const char* intrinsic = n.mode == ir::VoteMode::Ballot ? "__ballot_sync"
                          : n.mode == ir::VoteMode::Any  ? "__any_sync"
                                                         : "__all_sync";
  const std::string value = fmt::format("{}(0xffffffffu, {})", intrinsic, e.expr(n.predicate));
  e.line(fmt::format("{} = {};", e.expr(n.result), n.mode == ir::VoteMode::Ballot ? value : "(" + value + " != 0)"));
}

}  // namespace tessel::codegen
