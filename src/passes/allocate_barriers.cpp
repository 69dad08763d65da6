// Numbers the named barriers of thread groups' sync()s: one barrier per distinct group (its
// range of threads), in order of first use, from 1 up; barrier 0 is the block's sync(). A block
// has 16 (PTX ISA 9.7.13.1), so a 16th distinct group is a user error at its sync().
#include <map>

#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class AllocateBarriers : public ir::Mutator {
 public:
 protected:
  ir::Stmt visit(const ir::SyncNode& n, const ir::Stmt& self) override {
    if (n.barrier != ir::SyncNode::kUnallocated) return self;
    auto allocated = ir::copy_of(n);
    allocated->barrier = barrier_of_group(n.loc, "sync()");
    return allocated;
  }
  // A reduction, scan or layout conversion across the warps of a thread group, and a print,
  // synchronize them as its sync() would.
  ir::Stmt visit(const ir::ReduceNode& n, const ir::Stmt& self) override {
    return across_warps(n, self, fmt::format("{} across warps", ir::reduction_name(n)));
  }
  ir::Stmt visit(const ir::ScanNode& n, const ir::Stmt& self) override {
    return across_warps(n, self, fmt::format("cum{} across warps", ir::op_name(n.op)));
  }
  ir::Stmt visit(const ir::PrintTensorNode& n, const ir::Stmt& self) override {
    return across_warps(n, self, "print of a tile");
  }
  ir::Stmt visit(const ir::RelayoutNode& n, const ir::Stmt& self) override {
    return across_warps(n, self, "convert_layout across warps");
  }

 private:
  template <class N> ir::Stmt across_warps(const N& n, const ir::Stmt& self, const std::string& what) {
    if (!n.scratch || n.barrier != ir::ReduceNode::kUnallocated) return self;
    auto allocated = ir::copy_of(n);
    allocated->barrier = barrier_of_group(n.loc, what);
    return allocated;
  }

  int barrier_of_group(const SourceLoc& loc, const std::string& what) {
    const ir::ThreadRange g = position().group();
    auto it = barriers_.find({g.begin, g.count});
    if (it == barriers_.end()) {
      const int id = int(barriers_.size()) + 1;
      if (id >= ir::SyncNode::kBarriers)
        throw Error(loc, fmt::format("{} in the thread group of {} needs a named barrier, but the {} of a block are "
                                     "taken: barrier 0 by the block's sync() and one by each of {} other thread "
                                     "groups that call sync(); synchronize fewer distinct groups",
                                     what, g.str(), ir::SyncNode::kBarriers, barriers_.size()));
      it = barriers_.emplace(std::pair{g.begin, g.count}, id).first;
    }
    return it->second;
  }

  std::map<std::pair<int, int>, int> barriers_;  // (first thread, count) -> barrier
};

}  // namespace

ir::Kernel allocate_barriers(const ir::Kernel& k, const PassContext&) { return AllocateBarriers().mutate_kernel(k); }

}  // namespace tessel::passes
