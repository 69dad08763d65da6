// Assigns every shared allocation its byte offset in the block's shared memory and records the
// total. Allocations are aligned to 128 bytes, and swizzled ones to 1024 bytes so that their pattern
// is the one TMA and the tensor cores assume.
//
// An allocation lives from its statement to the free_shared that ends it, in the order of the
// program's text; one without a free lives to the kernel's end. Two allocations whose lives
// overlap never share a byte; each takes the lowest offset that the allocations it overlaps leave
// free, in the order they are allocated. Inside a loop, an allocation that its body does not free
// lives from the outermost loop's start, since the next iteration runs the statements before it
// again (a free must be in the allocating body, so an allocation freed there lives and dies within
// one iteration).
#include <algorithm>
#include <limits>
#include <map>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

constexpr int64_t kAlignment = 128, kSwizzledAlignment = 1024;
constexpr int64_t kKernelEnd = std::numeric_limits<int64_t>::max();

struct Life {
  const ir::AllocSharedNode* alloc;
  int64_t start, end;  // positions in the program's text
  int64_t offset = 0, align = 0;
};

// Numbers the statements in the order of the text and records each allocation's life.
class Lives : public ir::Visitor {
 public:
  std::vector<Life> lives;

 protected:
  void visit(const ir::AllocSharedNode& n) override {
    const int64_t at = ++position_;
    index_[n.tensor.get()] = lives.size();
    lives.push_back(Life{&n, loop_starts_.empty() ? at : loop_starts_.front(), kKernelEnd});
    allocated_at_.push_back(at);
  }
  void visit(const ir::FreeSharedNode& n) override {
    const size_t i = index_.at(n.tensor.get());
    lives[i].start = allocated_at_[i];
    lives[i].end = ++position_;
  }
  void visit(const ir::ForNode& n) override {
    loop([&] { Visitor::visit(n); });
  }
  void visit(const ir::WhileNode& n) override {
    loop([&] { Visitor::visit(n); });
  }

 private:
  template <class F> void loop(F body) {
    loop_starts_.push_back(++position_);
    body();
    loop_starts_.pop_back();
    ++position_;
  }

  int64_t position_ = 0;
  std::vector<int64_t> loop_starts_;
  std::map<const ir::SharedTensorNode*, size_t> index_;
  std::vector<int64_t> allocated_at_;
};

class Planner : public ir::Mutator {
 public:
  explicit Planner(const std::map<const ir::SharedTensorNode*, const Life*>& planned) : planned_(planned) {}

 protected:
  ir::Stmt visit(const ir::AllocSharedNode& n, const ir::Stmt& self) override {
    const Life& life = *planned_.at(n.tensor.get());
    if (n.offset == life.offset && n.alignment == life.align) return self;
    auto planned = ir::copy_of(n);
    planned->offset = life.offset;
    planned->alignment = int(life.align);
    return planned;
  }

 private:
  const std::map<const ir::SharedTensorNode*, const Life*>& planned_;
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

}  // namespace

ir::Kernel plan_shared_memory(const ir::Kernel& k, const PassContext&) {
  Lives lives;
  lives.visit_kernel(*k);
  int64_t total = 0;
  std::map<const ir::SharedTensorNode*, const Life*> planned;
  for (size_t i = 0; i < lives.lives.size(); ++i) {
    Life& life = lives.lives[i];
    const ir::SharedTensorNode& t = *life.alloc->tensor;
    life.align = t.swizzle_bits > 0 ? kSwizzledAlignment : kAlignment;
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t j = 0; j < i; ++j) {
      const Life& other = lives.lives[j];
      if (other.start < life.end && life.start < other.end)
        taken.emplace_back(other.offset, other.offset + other.alloc->tensor->nbytes());
    }
    life.offset = lowest_free(std::move(taken), t.nbytes(), life.align);
    total = std::max(total, life.offset + t.nbytes());
    planned[&t] = &life;
  }
  Planner p(planned);
  ir::Stmt body = p.mutate(k->body);
  if (body == k->body && k->shared_bytes == total) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = body;
  out->shared_bytes = total;
  return out;
}

}  // namespace tessel::passes
