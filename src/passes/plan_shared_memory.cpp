// Assigns every shared allocation its byte offset in the block's shared memory and records the
// total. Allocations live for the whole kernel (no reuse yet), aligned to 128 bytes, and swizzled
// ones to 1024 bytes so that their pattern is the one TMA and the tensor cores assume.
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

constexpr int64_t kAlignment = 128, kSwizzledAlignment = 1024;

class Planner : public ir::Mutator {
 public:
  int64_t total = 0;

 protected:
  ir::Stmt visit(const ir::AllocSharedNode& n, const ir::Stmt& self) override {
    const int64_t align = n.tensor->swizzle_bits > 0 ? kSwizzledAlignment : kAlignment;
    const int64_t offset = (total + align - 1) / align * align;
    total = offset + n.tensor->nbytes();
    if (n.offset == offset && n.alignment == align) return self;
    auto planned = ir::copy_of(n);
    planned->offset = offset;
    planned->alignment = int(align);
    return planned;
  }
};

}  // namespace

ir::Kernel plan_shared_memory(const ir::Kernel& k, const PassContext&) {
  Planner p;
  ir::Stmt body = p.mutate(k->body);
  if (body == k->body && k->shared_bytes == p.total) return k;
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = body;
  out->shared_bytes = p.total;
  return out;
}

}  // namespace tessel::passes
