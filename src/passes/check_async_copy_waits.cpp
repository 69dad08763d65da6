// Checks, in straight-line code, that no instruction uses a shared tile that a copy_async issued
// before it writes, with no copy_async wait between them: the copy may still be landing, on every
// device and under every schedule. The traversal follows program order; a body (a loop's, an
// if_'s, a thread group's) sees what was pending before it, and what it issues itself is
// forgotten when it ends, so that copies in one branch never meet reads in the other. A wait
// anywhere retires every pending copy. Tiles are related when they are the same view, or one is
// the allocation the other views; other views of one allocation are not compared. Changes nothing.
#include <map>

#include "shared_tiles.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class CopyWaits : public ir::Visitor {
 protected:
  void visit(const ir::CopyAsyncNode& n) override {
    Visitor::visit(n);
    pending_[n.dst.get()] = &n;
  }
  void visit(const ir::CopyAsyncWaitNode& n) override {
    Visitor::visit(n);
    pending_.clear();
  }
  void visit(const ir::ForNode& n) override {
    nested([&] { Visitor::visit(n); });
  }
  void visit(const ir::WhileNode& n) override {
    nested([&] { Visitor::visit(n); });
  }
  void visit(const ir::ThreadGroupNode& n) override {
    nested([&] { Visitor::visit(n); });
  }
  void visit(const ir::IfNode& n) override {
    nested([&] { visit_branch(n.then_case); });
    if (n.else_case) nested([&] { visit_branch(n.else_case); });
  }

  void visit_instruction(const ir::StmtNode& s) override {
    for (const ir::Ref<ir::Node>& t : ir::direct_operands(s).tensors) {
      if (t->kind != ir::NodeKind::SharedTensor) continue;
      const auto* tile = static_cast<const ir::SharedTensorNode*>(t.get());
      for (const auto& [written, copy] : pending_)
        if (certainly_overlap(tile, written) && copy != &s)
          throw Error(s.loc, fmt::format("{} uses the shared tile allocated at {}, which the copy_async at {} writes, "
                                         "with no copy_async wait between them: the copy may still be landing; wait "
                                         "for its group (copy_async_wait_all or copy_async_wait_group) first, and "
                                         "sync() when other threads issued it",
                                         ir::call_name(s.kind), tile->allocation()->loc.str(), copy->loc.str()));
    }
  }

 private:
  // Runs `body` with the copies pending now; afterwards, those it issued are forgotten and those
  // its waits retired stay retired.
  template <class F> void nested(F&& body) {
    const std::map<const ir::SharedTensorNode*, const ir::StmtNode*> before = pending_;
    body();
    std::map<const ir::SharedTensorNode*, const ir::StmtNode*> after;
    for (const auto& [tile, copy] : before)
      if (pending_.count(tile)) after[tile] = copy;
    pending_ = std::move(after);
  }

  std::map<const ir::SharedTensorNode*, const ir::StmtNode*> pending_;
};

}  // namespace

ir::Kernel check_async_copy_waits(const ir::Kernel& k, const PassContext&) {
  CopyWaits().visit_kernel(*k);
  return k;
}

}  // namespace tessel::passes
