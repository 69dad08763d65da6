// The warp instructions: shuffles (__shfl_*_sync), votes (__ballot_sync, __any_sync,
// __all_sync) and relayouts (__shfl_sync per register and source register within warps, shared
// memory between two barriers across them), over whole warps.
#include <fmt/ranges.h>

#include <map>
#include <optional>

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

// `v` (of storage type `t`) as another lane holds it: the float types other than f32 travel as
// their bits (a word for tf32), the narrow integers and bool as int.
std::string shuffled(ir::ShuffleMode m, DType t, const std::string& v, const std::string& lane) {
  const auto call = [&](const std::string& x) {
    return fmt::format("{}(0xffffffffu, {}, {})", shuffle_intrinsic(m), x, lane);
  };
  if (stored_as_bits(t))
    return from_bits_expr(t, fmt::format("({}){}", dtype_bits(t) == 32 ? "unsigned" : "unsigned short",
                                         call(fmt::format("(unsigned)({})", bits_expr(t, v)))));
  if (t == DType::Bool) return fmt::format("({} != 0)", call(fmt::format("int({})", v)));
  if (dtype_bytes(t) < 4) return fmt::format("{}({})", c_type(t), call(fmt::format("int({})", v)));
  return call(v);
}

// The lane each lane of `lanes` reads from, given as `source[i]` for lane i, as an expression
// of `lane`: an xor, a constant, or the five bits of the lane read from 32-bit tables.
std::string source_lane(const std::array<int, 32>& source, uint32_t lanes) {
  std::optional<int> xor_of, constant;
  bool is_xor = true, is_constant = true;
  for (int i = 0; i < 32; ++i) {
    if (!(lanes >> i & 1)) continue;
    if (!xor_of) xor_of = source[size_t(i)] ^ i, constant = source[size_t(i)];
    is_xor = is_xor && (source[size_t(i)] ^ i) == *xor_of;
    is_constant = is_constant && source[size_t(i)] == *constant;
  }
  if (is_constant) return std::to_string(*constant);
  if (is_xor) return *xor_of == 0 ? "lane" : fmt::format("(lane ^ {})", *xor_of);
  std::vector<std::string> bits;
  for (int b = 0; b < 5; ++b) {
    uint32_t plane = 0;
    for (int i = 0; i < 32; ++i)
      if (lanes >> i & 1 && source[size_t(i)] >> b & 1) plane |= 1u << i;
    if (plane) bits.push_back(fmt::format("(0x{:x}u >> lane & 1u) << {}", plane, b));
  }
  return bits.empty() ? "0" : fmt::format("int({})", fmt::join(bits, " | "));
}

// Across warps: the group's threads store their elements (the first replica of each) to the
// scratch in row-major order (ir::relayout_scratch_slot), meet at the barrier, load the elements
// of the new layout, and meet again so that the scratch is free for the next conversion.
void emit_relayout_through_scratch(Emitter& e, const ir::RelayoutNode& n) {
  TESSEL_CHECK(n.barrier != ir::ReduceNode::kUnallocated,
               "convert_layout at {} reached code generation without its "
               "barrier",
               n.loc.str());
  const int row_length = n.a->shape().back(), padding = ir::relayout_row_padding(row_length, n.a->dtype);
  const auto slot = [&](const Layout& layout) {
    const std::string position = row_major_position(layout, "t", "l");
    return padding == 0 ? position : fmt::format("({0}) + ({0}) / {1} * {2}", position, row_length, padding);
  };
  e.declare_tile(n.out);
  e.open("");
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  const std::vector<std::string> first_replica = first_replica_conditions(n.a->layout, "t");
  e.open(first_replica.empty() ? "" : fmt::format("if ({})", fmt::join(first_replica, " && ")));
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {} = {}[l];", n.a->layout.local_size(),
                     shared_element(e, n.scratch, slot(n.a->layout)), e.tile(n.a)));
  e.close();
  emit_barrier(e, n.barrier);
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {};", n.out->layout.local_size(), e.tile(n.out),
                     shared_element(e, n.scratch, slot(n.out->layout))));
  emit_barrier(e, n.barrier);
  e.close();
}

}  // namespace

void emit_Relayout(Emitter& e, const ir::RelayoutNode& n) {
  e.header(n, fmt::format("convert_layout {} -> {}", n.a->layout.str(), n.out->layout.str()));
  if (n.scratch) return emit_relayout_through_scratch(e, n);
  const std::optional<std::vector<ir::RelayoutSource>> sources = ir::shuffle_sources(n);
  TESSEL_CHECK(sources, "convert_layout at {} across warps reached code generation without its scratch", n.loc.str());
  const int local = n.out->layout.local_size();
  // Lane i of every warp reads [slot] = (source lane, source slot), the same in every warp.
  const auto pattern = [&](int l) {
    std::array<std::pair<int, int>, 32> p{};
    for (int i = 0; i < 32; ++i) {
      const ir::RelayoutSource& s = (*sources)[size_t(i) * size_t(local) + size_t(l)];
      p[size_t(i)] = {s.thread, s.slot};
    }
    return p;
  };
  e.declare_tile(n.out);
  e.open("");
  e.line(fmt::format("const int lane = {} % 32;", e.thread_in_group()));
  const std::string out = e.tile(n.out), in = e.tile(n.a);
  for (int l = 0; l < local; ++l) {
    const auto p = pattern(l);
    std::map<int, std::array<int, 32>> by_slot;  // source slot -> source lane of each lane
    std::map<int, uint32_t> lanes_of;
    bool in_place = true;
    for (int i = 0; i < 32; ++i) {
      by_slot[p[size_t(i)].second][size_t(i)] = p[size_t(i)].first;
      lanes_of[p[size_t(i)].second] |= 1u << i;
      in_place = in_place && p[size_t(i)].first == i;
    }
    if (in_place && by_slot.size() == 1) {
      e.line(fmt::format("{}[{}] = {}[{}];", out, l, in, by_slot.begin()->first));
      continue;
    }
    bool first = true;
    for (const auto& [slot, source] : by_slot) {
      const std::string moved = shuffled(ir::ShuffleMode::Index, n.a->dtype, fmt::format("{}[{}]", in, slot),
                                         source_lane(source, lanes_of[slot]));
      // Every lane runs every shuffle (a lane may be the source of another), then keeps its own.
      e.line(first ? fmt::format("{}[{}] = {};", out, l, moved)
                   : fmt::format("{{ const auto moved = {}; if (0x{:x}u >> lane & 1u) {}[{}] = moved; }}", moved,
                                 lanes_of[slot], out, l));
      first = false;
    }
  }
  e.close();
}

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
