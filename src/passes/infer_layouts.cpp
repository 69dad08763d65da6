// infer_layouts: gives every register tile its layout. Tracing leaves a tile's layout empty unless
// the user pinned it; this pass decides the rest from how tiles are used, by rules applied in
// priority order:
//   (a) pins: the layout argument of register_tensor / load_global / load_shared, and
//       annotate_layout (consumed here);
//   (b) dot anchors a, b, c and its result to the mma fragment layouts of one warp split: the
//       best split of mma_warp_splits() that agrees with every operand already fixed;
//   (c) propagation: same-shape operands and results of elementwise operations, where, fma, casts
//       and assignments share one layout; a reduction's result is its operand's layout reduced
//       along the dimension; a broadcast operand takes the result's layout reduced along the
//       broadcast dimensions; a slice's result keeps the registers of its operand that hold it
//       (Layout::slice);
//   (d) what an instruction needs of a tile that (a) to (c) left open (LayoutConstraints::
//       preferred): a scan's runs along its dimension, a reduction's lines that lanes and warps
//       can combine, a fetching atomic's one thread an element;
//   (e) the coalescing default (Layout::distributed) for what remains, largest tile first, each
//       choice propagated by (c) before the next.
// A tile that two rules give different layouts is a user error naming both rules, their
// instructions and source lines, and both layouts. Afterwards the requirements that depend on
// layouts are checked: broadcast operands hold what each thread needs, reductions stay in a warp.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "layout_constraints.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/layout/mma_atoms.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// The longest run of consecutive elements that the coalescing default gives a thread: 16 bytes;
// 16 packed elements, or the fewest that fill whole 32-bit words where that is more.
int coalescing_run(DType t) {
  if (!is_packed(t)) return 16 / dtype_bytes(t);
  return std::max(16, 32 / std::gcd(dtype_bits(t), 32));
}

}  // namespace

Layout coalescing_default(const ir::RegisterTensor& tile) {
  // Runs shorter than 16 bytes where the longest would leave threads holding copies (extents with
  // few factors of two: [4, 384] f16 over 128 threads takes runs of 4, not 8 on 64 threads twice);
  // packed runs no shorter than a 32-bit word.
  const DType t = tile->dtype;
  const int longest = coalescing_run(t), shortest = is_packed(t) ? 32 / std::gcd(dtype_bits(t), 32) : 1;
  for (int run = longest; run >= shortest; run /= 2) {
    Layout l = Layout::distributed_runs(tile->shape(), tile->threads, run);
    if (int64_t(l.num_threads()) * l.local_size() == l.num_elements()) return l;
  }
  return Layout::distributed_runs(tile->shape(), tile->threads, longest);
}

namespace {

// Tiles that must share a layout form classes (union-find); a class's layout, once fixed, records
// the rule that fixed it for error messages.
class LayoutSolver {
 public:
  explicit LayoutSolver(const LayoutConstraints& c) : c_(c), parent_(c.tiles.size()), fixed_(c.tiles.size()) {
    for (size_t i = 0; i < parent_.size(); ++i) parent_[i] = int(i);
    for (auto [x, y] : c.same_layout) {
      const ir::RegisterTensor &tx = c.tiles[x].tile, &ty = c.tiles[y].tile;
      TESSEL_CHECK(tx->shape() == ty->shape() && tx->threads == ty->threads,
                   "tiles created at {} and {} share a layout but differ in shape or thread count", tx->loc.str(),
                   ty->loc.str());
      parent_[find(x)] = find(y);
    }
  }

  void solve() {
    for (const Requirement& pin : c_.pins) require(pin);
    for (const DotUse& d : c_.dots) anchor_dot(d);
    propagate();
    // A preference yields to the rules it would break: the layouts it would have derived are
    // undone, and the tiles get theirs otherwise.
    for (const Requirement& r : c_.preferred) {
      if (is_fixed(r.tile) || follows_another(r.tile, r.layout)) continue;
      const std::vector<std::optional<Requirement>> before = fixed_;
      try {
        require(r);
        propagate();
      } catch (const Error&) {
        fixed_ = before;
      }
    }
    // The largest tile without a layout gets the coalescing default, unless a rule refuses what it
    // would derive; then the next largest does, and so on.
    for (std::vector<int> order = unfixed_by_size(); !order.empty(); order = unfixed_by_size()) {
      std::optional<Error> refused;
      bool fixed_one = false;
      // A class's tiles of one type have one default: a refused one is not tried again this round.
      std::set<std::pair<int, std::string>> tried;
      for (int t : order) {
        if (is_fixed(t)) continue;
        const TileInfo& info = c_.tiles[size_t(t)];
        const Layout fallback = coalescing_default(info.tile);
        if (!tried.emplace(find(t), fallback.str()).second) continue;
        const std::vector<std::optional<Requirement>> before = fixed_;
        try {
          require({fallback, t, "gets the coalescing default", "", info.loc});
          propagate();
          fixed_one = true;
          break;
        } catch (const Error& e) {
          fixed_ = before;
          if (!refused) refused = e;
        }
      }
      if (!fixed_one) throw *refused;
    }
  }

  const Layout& layout(int tile) { return fixed_[find(tile)]->layout; }
  WarpSplit split(size_t dot) const { return splits_[dot]; }

 private:
  int find(int t) { return parent_[t] == t ? t : parent_[t] = find(parent_[t]); }

  bool is_fixed(int tile) { return fixed_[find(tile)].has_value(); }

  // Whether a directed rule of (c) gives `tile`'s class its layout from another tile's: a
  // preference fixed first would contradict it once that tile's layout is chosen. A result that
  // gives its operand a layout backward (a reshape's) does not count where the preferred layout
  // `wanted` gives it one forward: the old values of a fetching atomic reshaped before they are
  // stored then keep one thread an element, and the reshaped tile follows them.
  bool follows_another(int tile, const Layout& wanted) {
    const int c = find(tile);
    const auto derives_forward = [&](const DerivedUse& u) {
      try {
        u.forward(wanted);
        return true;
      } catch (const Error&) {
        return false;
      }
    };
    for (const ReduceUse& r : c_.reductions)
      if (find(r.out) == c) return true;
    for (const SliceUse& u : c_.slices)
      if (find(u.out) == c) return true;
    for (const DerivedUse& u : c_.derived)
      if (find(u.to) == c || (u.backward && find(u.from) == c && !derives_forward(u))) return true;
    for (const BroadcastUse& b : c_.broadcasts)
      if (find(b.operand) == c) return true;
    return false;
  }

  void require(const Requirement& r) {
    std::optional<Requirement>& have = fixed_[find(r.tile)];
    if (!have) {
      have = r;
      return;
    }
    if (!(have->layout == r.layout)) throw conflict(*have, r);
  }

  Error conflict(const Requirement& first, const Requirement& second) const {
    const TileInfo &t1 = c_.tiles[first.tile], &t2 = c_.tiles[second.tile];
    const std::string subject2 = first.tile == second.tile
                                     ? std::string()
                                     : fmt::format("the tile created by {} at {}, which must have the same layout, ",
                                                   t2.created_by, t2.loc.str());
    // A broadcast operand takes the layout its result gives it; one that another rule also fixes
    // needs a copy of its own for the broadcast.
    std::string fix;
    for (const Requirement* r : {&second, &first})
      if (r->broadcast_operand) {
        fix = fmt::format(
            "; pass convert_layout(operand) to {} at {} instead, a copy that takes the layout that "
            "use needs",
            r->instruction, r->loc.str());
        break;
      }
    return Error(second.loc, fmt::format("layout conflict: the tile created by {} at {} {} ({}), but {}{} ({}){}",
                                         t1.created_by, t1.loc.str(), first.describe(), first.layout.str(), subject2,
                                         second.describe(), second.layout.str(), fix));
  }

  void anchor_dot(const DotUse& d) {
    const std::vector<WarpSplit> splits = mma_warp_splits(d.m, d.n, d.k, d.warps, d.operand);
    TESSEL_CHECK(!splits.empty(), "dot at {} has no warp split", d.loc.str());
    auto fits = [&](int tile, const Layout& want) { return !is_fixed(tile) || layout(tile) == want; };
    WarpSplit chosen = splits.front();
    for (const WarpSplit& s : splits) {
      const MmaLayouts f = mma_layouts(d.m, d.n, d.k, s.m, s.n, d.operand);
      if (fits(d.a, f.a) && fits(d.b, f.b) && fits(d.c, f.c) && fits(d.out, f.c)) {
        chosen = s;
        break;
      }
    }
    splits_.push_back(chosen);
    const MmaLayouts f = mma_layouts(d.m, d.n, d.k, chosen.m, chosen.n, d.operand);
    require({f.a, d.a, "is needed as the mma A fragment by", "dot", d.loc});
    require({f.b, d.b, "is needed as the mma B fragment by", "dot", d.loc});
    require({f.c, d.c, "is needed as the mma C fragment by", "dot", d.loc});
    require({f.c, d.out, "is the mma C fragment result of", "dot", d.loc});
  }

  // Applies the directed rules of (c) until nothing changes.
  void propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const ReduceUse& r : c_.reductions) {
        if (!is_fixed(r.in)) continue;
        const Layout want = layout(r.in).reduced(r.dim);
        changed |= !is_fixed(r.out);
        require({want, r.out, fmt::format("is the reduction over dim {} by", r.dim), r.op, r.loc, false, r.in});
      }
      for (const SliceUse& s : c_.slices) {
        if (!is_fixed(s.in)) continue;
        changed |= !is_fixed(s.out);
        require({slice_of(s), s.out, "is the slice by", "slice", s.loc, false, s.in});
      }
      for (const DerivedUse& u : c_.derived) {
        if (is_fixed(u.from)) {
          changed |= !is_fixed(u.to);
          require({derive(u, u.from, u.forward), u.to, u.how, u.instruction, u.loc, false, u.from});
        } else if (is_fixed(u.to) && u.backward) {
          require({derive(u, u.to, u.backward), u.from, "is the operand needed by", u.instruction, u.loc, false, u.to});
          changed = true;
        }
      }
      for (const BroadcastUse& b : c_.broadcasts) {
        if (!is_fixed(b.result) || is_fixed(b.operand)) continue;
        Layout want = layout(b.result);
        for (int d : b.dims) want = want.reduced(d);
        require({want, b.operand, "is needed as a broadcast operand by", b.op, b.loc, true, b.result});
        changed = true;
      }
    }
  }

  Layout derive(const DerivedUse& u, int tile, const std::function<Layout(const Layout&)>& rule) {
    const Layout& given = layout(tile);
    try {
      return rule(given);
    } catch (const Error& e) {
      throw Error(u.loc, fmt::format("{}: the tile created by {} at {} ({}) {}{}", u.instruction,
                                     c_.tiles[tile].created_by, c_.tiles[tile].loc.str(), given.str(),
                                     u.refusal.empty() ? e.message() : u.refusal, origin_of(tile)));
    }
  }

  // Where the layout of `tile` comes from, when a directed rule carried it there from another
  // tile's: " (its layout comes from ...)", naming the first rule of the chain.
  std::string origin_of(int tile) {
    const Requirement* r = &*fixed_[find(tile)];
    if (r->source < 0) return "";
    std::set<int> seen{find(tile)};
    while (r->source >= 0 && seen.insert(find(r->source)).second && fixed_[find(r->source)])
      r = &*fixed_[find(r->source)];
    const TileInfo& t = c_.tiles[r->tile];
    return fmt::format(
        " (its layout comes from the tile created by {} at {}, which {}: pin a layout on a tile "
        "between them, or convert_layout(x, layout) one of them)",
        t.created_by, t.loc.str(), r->describe());
  }

  Layout slice_of(const SliceUse& s) {
    try {
      return layout(s.in).slice(s.offsets, c_.tiles[s.out].tile->shape());
    } catch (const Error& e) {
      throw Error(s.loc, fmt::format("slice of the tile created by {} at {}: {}; slice along the dimensions its "
                                     "threads hold whole",
                                     c_.tiles[s.in].created_by, c_.tiles[s.in].loc.str(), e.message()));
    }
  }

  // The tiles without a layout, largest first, the results of derivations whose operand comes
  // first and has none yet after all others; tiles of one size in the order of their creation.
  std::vector<int> unfixed_by_size() {
    std::vector<bool> waits(c_.tiles.size(), false);
    for (const DerivedUse& u : c_.derived)
      if (u.operand_first && !is_fixed(u.from)) waits[size_t(find(u.to))] = true;
    std::vector<int> order;
    for (int t = 0; t < int(c_.tiles.size()); ++t)
      if (!is_fixed(t)) order.push_back(t);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      const bool wx = waits[size_t(find(x))], wy = waits[size_t(find(y))];
      return wx != wy ? !wx : elements(x) > elements(y);
    });
    return order;
  }

  int64_t elements(int t) const {
    int64_t n = 1;
    for (int e : c_.tiles[t].tile->shape()) n *= e;
    return n;
  }

  const LayoutConstraints& c_;
  std::vector<int> parent_;
  std::vector<std::optional<Requirement>> fixed_;
  std::vector<WarpSplit> splits_;
};

// Every element of the result must find its broadcast source element in the same thread;
// convert_layout can bring it there.
void check_broadcast(const BroadcastUse& b, const ir::RegisterTensor& operand, const Layout& in, const Layout& out) {
  for (int t = 0; t < out.num_threads(); ++t)
    for (int l = 0; l < out.local_size(); ++l) {
      std::vector<int> c = out.coords(t, l);
      for (int d : b.dims) c[d] = 0;
      int local = 0;
      if (!in.holds(t, c, &local))
        throw Error(b.loc, fmt::format("{}: the broadcast operand created at {} ({}) does not place its elements in "
                                       "the threads that need them for the result {}; give the operands matching "
                                       "layouts (for a reduced tile, use the reduced layout of the other operand), "
                                       "or move the operand with convert_layout(x, layout)",
                                       b.op, operand->loc.str(), in.str(), out.str()));
    }
}

// A packed tile lives in whole 32-bit registers (codegen packs its elements into words).
void check_packed_registers(const TileInfo& info, const Layout& layout) {
  const DType t = info.tile->dtype;
  if (!is_packed(t) || layout.local_size() * dtype_bits(t) % 32 == 0) return;
  throw Error(info.loc, fmt::format("{} of packed {} elements: each thread holds {} of them in {}, and a packed tile "
                                    "must fill whole 32-bit registers, a multiple of {} elements per thread; give it "
                                    "more elements per thread (a larger tile, fewer threads, or a layout)",
                                    info.created_by, dtype_name(t), layout.local_size(), layout.str(),
                                    32 / std::gcd(dtype_bits(t), 32)));
}

// Lanes of a warp combine with butterfly shuffles; warps combine through shared memory
// (plan_reductions).
void check_reduction(const ReduceUse& r, const Layout& in) {
  Layout::WarpSplit split;
  if (!in.split_at_warps(r.dim, &split))
    throw Error(r.loc, fmt::format("{} over dim {}: the threads spanning that dimension in {} cross a warp boundary "
                                   "unevenly; choose a layout whose threads along dim {} fill whole warps",
                                   r.op, r.dim, in.str(), r.dim));
  for (const Layout::ThreadSpan& s : split.lanes)
    if (s.size & (s.size - 1))
      throw Error(r.loc, fmt::format("{} over dim {}: {} lanes of a warp span that dimension; the lane count must be "
                                     "a power of two",
                                     r.op, r.dim, s.size));
}

// Replaces every tile by its resolved counterpart, sets each dot's warp split and drops the
// annotations.
class ApplyLayouts : public ir::Mutator {
 public:
  ApplyLayouts(std::map<const ir::RegisterTensorNode*, ir::RegisterTensor> tiles,
               std::map<const ir::DotNode*, WarpSplit> splits)
      : tiles_(std::move(tiles)), splits_(std::move(splits)) {}

 protected:
  ir::RegisterTensor visit(const ir::RegisterTensorNode&, const ir::RegisterTensor& self) override {
    return tiles_.at(self.get());
  }
  ir::Stmt visit(const ir::DotNode& n, const ir::Stmt& self) override {
    const WarpSplit s = splits_.at(&n);
    auto split = ir::copy_of(static_cast<const ir::DotNode&>(*Mutator::visit(n, self)));
    split->warps_m = s.m;
    split->warps_n = s.n;
    return split;
  }
  ir::Stmt visit(const ir::AnnotateLayoutNode& n, const ir::Stmt&) override { return ir::seq({}, n.loc); }

 private:
  std::map<const ir::RegisterTensorNode*, ir::RegisterTensor> tiles_;
  std::map<const ir::DotNode*, WarpSplit> splits_;
};

}  // namespace

ir::Kernel infer_layouts(const ir::Kernel& k, const PassContext&) {
  const LayoutConstraints c = collect_layout_constraints(*k);
  LayoutSolver solver(c);
  solver.solve();

  for (const BroadcastUse& b : c.broadcasts)
    check_broadcast(b, c.tiles[b.operand].tile, solver.layout(b.operand), solver.layout(b.result));
  for (const ReduceUse& r : c.reductions) check_reduction(r, solver.layout(r.in));

  bool changed = c.has_annotations;
  std::map<const ir::RegisterTensorNode*, ir::RegisterTensor> tiles;
  for (int t = 0; t < int(c.tiles.size()); ++t) {
    const ir::RegisterTensor& old = c.tiles[t].tile;
    const Layout& layout = solver.layout(t);
    check_packed_registers(c.tiles[t], layout);
    if (old->has_layout() && old->layout == layout) {
      tiles[old.get()] = old;
      continue;
    }
    tiles[old.get()] =
        ir::make<ir::RegisterTensorNode>(old->dtype, old->shape(), old->threads, layout, old->name, old->loc);
    changed = true;
  }
  std::map<const ir::DotNode*, WarpSplit> splits;
  for (size_t i = 0; i < c.dots.size(); ++i) {
    const WarpSplit s = solver.split(i);
    splits[c.dots[i].node] = s;
    changed |= c.dots[i].node->warps_m != s.m || c.dots[i].node->warps_n != s.n;
  }
  if (!changed) return k;
  return ir::with_body(k, ApplyLayouts(std::move(tiles), std::move(splits)).mutate(k->body));
}

}  // namespace tessel::passes
