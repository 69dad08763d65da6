// Assigns every shared allocation its byte offset in the block's shared memory and records the
// total. Allocations are aligned to 128 bytes, and swizzled ones to 1024 bytes so that their pattern
// is the one TMA and the tensor cores assume.
//
// An allocation lives from its statement to the free_shared that ends it, in the order of the
// program's text; one without a free lives to the kernel's end. Two allocations whose lives
// overlap never share a byte; each takes the lowest offset that the allocations it overlaps leave
// free, in the order they are allocated. Text order is execution order only where the same threads
// run both statements, so:
// - inside a loop, an allocation that its body does not free lives from the outermost loop's start,
//   since the next iteration runs the statements before it again (a free must be in the allocating
//   body, so an allocation freed there lives and dies within one iteration);
// - an allocation freed inside an if_ or else_ body or a thread group gives its bytes only to
//   allocations later in that body: the other branch, another thread group and the code after them
//   may run beside it, in other warps;
// - mbarrier arrays live from the kernel's start: their initialization is no access that the race
//   detector orders against a freed tile's.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

constexpr int64_t kAlignment = 128, kSwizzledAlignment = 1024;
constexpr int64_t kKernelEnd = std::numeric_limits<int64_t>::max();

struct Body {
  int64_t begin, end;  // positions in the program's text, both outside the body
  bool holds(int64_t position) const { return begin < position && position < end; }
};

struct Life {
  const ir::SharedTensorNode* tile;
  int64_t allocated_at;
  int64_t start, end;  // positions in the program's text
  int body;            // the innermost if_, else_ or thread-group body around it, or -1
  int64_t offset = 0, align = 0;
};

// Numbers the statements in the order of the text and records each allocation's life.
class Lives : public ir::Visitor {
 public:
  std::vector<Life> lives;
  std::vector<Body> bodies;

  Life& of(const ir::SharedTensorNode* tile) { return lives[index_.at(tile)]; }

  // After the visit: the barrier arrays' lives start with the kernel.
  void finish() {
    for (Life& life : lives)
      if (barriers_.count(life.tile)) life.start = 0;
  }

 protected:
  void visit(const ir::AllocSharedNode& n) override {
    const int64_t at = ++position_;
    index_[n.tensor.get()] = lives.size();
    lives.push_back(Life{n.tensor.get(), at, loop_starts_.empty() ? at : loop_starts_.front(), kKernelEnd,
                         open_bodies_.empty() ? -1 : open_bodies_.back()});
  }
  void visit(const ir::FreeSharedNode& n) override {
    Life& life = of(n.tensor.get());
    life.start = life.allocated_at;
    life.end = ++position_;
  }
  void visit(const ir::MbarrierInitNode& n) override { barriers_.insert(n.array.get()); }
  void visit(const ir::ForNode& n) override {
    loop([&] { Visitor::visit(n); });
  }
  void visit(const ir::WhileNode& n) override {
    loop([&] { Visitor::visit(n); });
  }
  void visit(const ir::IfNode& n) override {
    body([&] { visit_branch(n.then_case); });
    if (n.else_case) body([&] { visit_branch(n.else_case); });
  }
  void visit(const ir::ThreadGroupNode& n) override {
    body([&] { visit_group(n); });
  }

 private:
  template <class F> void loop(F visit_body) {
    loop_starts_.push_back(++position_);
    visit_body();
    loop_starts_.pop_back();
    ++position_;
  }
  template <class F> void body(F visit_body) {
    open_bodies_.push_back(int(bodies.size()));
    bodies.push_back(Body{++position_, 0});
    visit_body();
    bodies[size_t(open_bodies_.back())].end = ++position_;
    open_bodies_.pop_back();
  }

  int64_t position_ = 0;
  std::vector<int64_t> loop_starts_;
  std::vector<int> open_bodies_;
  std::map<const ir::SharedTensorNode*, size_t> index_;
  std::set<const ir::SharedTensorNode*> barriers_;
};

class Planner : public ir::Mutator {
 public:
  explicit Planner(Lives& lives) : lives_(lives) {}

 protected:
  ir::Stmt visit(const ir::AllocSharedNode& n, const ir::Stmt& self) override {
    const Life& life = lives_.of(n.tensor.get());
    if (n.offset == life.offset && n.alignment == life.align) return self;
    auto planned = ir::copy_of(n);
    planned->offset = life.offset;
    planned->alignment = int(life.align);
    return planned;
  }

 private:
  Lives& lives_;
};

int64_t round_up(int64_t x, int64_t align) { return (x + align - 1) / align * align; }

// The lowest offset, aligned to `align`, where `bytes` overlap none of `taken` ([begin, end) ranges).
int64_t lowest_free(std::vector<std::pair<int64_t, int64_t>> taken, int64_t bytes, int64_t align) {
  std::sort(taken.begin(), taken.end());
  int64_t offset = 0;
  for (const auto& [begin, end] : taken) {
    if (offset + bytes <= begin) break;
    offset = std::max(offset, round_up(end, align));
  }
  return offset;
}

// Whether `earlier` (allocated before `later` in the text) and `later` are alive at once.
bool alive_together(const Life& earlier, const Life& later, const std::vector<Body>& bodies) {
  const bool freed_beside =
      earlier.end != kKernelEnd && earlier.body >= 0 && !bodies[size_t(earlier.body)].holds(later.allocated_at);
  const int64_t end = freed_beside ? kKernelEnd : earlier.end;
  return earlier.start < later.end && later.start < end;
}

}  // namespace

ir::Kernel plan_shared_memory(const ir::Kernel& k, const PassContext&) {
  Lives lives;
  lives.visit_kernel(*k);
  lives.finish();
  int64_t total = 0;
  for (size_t i = 0; i < lives.lives.size(); ++i) {
    Life& life = lives.lives[i];
    const ir::SharedTensorNode& t = *life.tile;
    life.align = t.swizzle_bits > 0 ? kSwizzledAlignment : kAlignment;
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t j = 0; j < i; ++j) {
      const Life& other = lives.lives[j];
      if (alive_together(other, life, lives.bodies))
        taken.emplace_back(other.offset, other.offset + other.tile->nbytes());
    }
    life.offset = lowest_free(std::move(taken), t.nbytes(), life.align);
    total = std::max(total, life.offset + t.nbytes());
  }
  Planner p(lives);
  ir::Stmt body = p.mutate(k->body);
  if (body == k->body && k->shared_bytes == total) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = body;
  out->shared_bytes = total;
  return out;
}

}  // namespace tessel::passes
