// Checks that a shared tile one thread group writes and another reads is handed over by something
// that can order the two: where two groups at the top of the kernel body touch the same tile, one
// writing it, and neither uses an mbarrier or the cluster barrier's halves and no statement that
// syncs the whole block (a sync(), a cluster.sync(), or a release cluster.arrive() before the one
// and its cluster.wait() after the other) lies between them, no path orders the write before
// the read or after it, on any device and under any schedule. Tiles are the same when they are the
// same view, or one is the allocation the other views; other views of one allocation may be
// disjoint (a stage per role) and are not compared. Groups inside loops or branches, and groups
// that use barriers, are left to the simulator. Changes nothing.
#include <map>
#include <set>

#include "shared_tiles.hpp"
#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// The barrier arrays of the kernel: what mbarrier.alloc initialized.
std::set<const ir::SharedTensorNode*> barrier_arrays(const ir::KernelNode& k) {
  std::set<const ir::SharedTensorNode*> arrays;
  ir::walk(k.body, [&](const ir::StmtNode& s) {
    if (const ir::SharedTensorNode* a = ir::effects(s).barriers_initialized) arrays.insert(a);
  });
  return arrays;
}

// What one thread group does to shared memory: the first write and the first read of each tile,
// and whether it uses any mbarrier or the cluster barrier's halves.
class GroupAccesses : public ir::Visitor {
 public:
  GroupAccesses(const ir::ThreadGroupNode& group, const std::set<const ir::SharedTensorNode*>& barriers)
      : barriers_(barriers) {
    visit_group(group);
  }
  std::map<const ir::SharedTensorNode*, const ir::StmtNode*> writes, reads;
  bool uses_barriers = false;

 protected:
  void visit(const ir::ClusterArriveNode&) override { uses_barriers = true; }
  void visit(const ir::ClusterWaitNode&) override { uses_barriers = true; }
  // Another block's tile (tile.remote(rank)) is handed over across blocks: the simulator checks it.
  void visit(const ir::StoreSharedNode& n) override {
    if (!n.rank) access(writes, n.dst, n);
  }
  void visit(const ir::CopyAsyncNode& n) override { access(writes, n.dst, n); }
  void visit(const ir::LoadSharedNode& n) override {
    if (!n.rank) access(reads, n.src, n);
  }
  void visit(const ir::TmaStoreNode& n) override { access(reads, n.src, n); }
  void visit(const ir::TmaSharedToClusterNode& n) override { access(reads, n.src, n); }
  void visit(const ir::TmaBulkStoreNode& n) override { access(reads, n.src, n); }
  void visit_instruction(const ir::StmtNode& s) override {
    for (const ir::TensorCoreRead& r : ir::effects(s).tensor_core_reads) reads.try_emplace(r.tile, &s);
    for (const ir::Ref<ir::Node>& t : ir::direct_operands(s).tensors)
      if (t->kind == ir::NodeKind::SharedTensor &&
          barriers_.count(static_cast<const ir::SharedTensorNode&>(*t).allocation()))
        uses_barriers = true;
  }

 private:
  void access(std::map<const ir::SharedTensorNode*, const ir::StmtNode*>& to, const ir::SharedTensor& tile,
              const ir::StmtNode& s) {
    to.try_emplace(tile.get(), &s);
    visit_instruction(s);
  }
  const std::set<const ir::SharedTensorNode*>& barriers_;
};

// The statements of the kernel body in order, nested Seqs flattened.
void flatten(const ir::Stmt& s, std::vector<ir::Stmt>& out) {
  if (s->kind != ir::NodeKind::Seq) return out.push_back(s);
  for (const ir::Stmt& c : static_cast<const ir::SeqNode&>(*s).stmts) flatten(c, out);
}

// Whether a top-level statement syncs the whole block, or may: a sync() or cluster.sync() outside
// every thread group, also inside a loop or a branch, or a cluster.wait() inside one of those.
class BlockSyncs : public ir::Visitor {
 public:
  explicit BlockSyncs(const ir::Stmt& s) { visit_stmt(s); }
  bool found = false;

 protected:
  void visit(const ir::ThreadGroupNode&) override {}
  void visit(const ir::SyncNode&) override { found = true; }
  void visit(const ir::ClusterSyncNode&) override { found = true; }
  void visit(const ir::ClusterWaitNode&) override { found = true; }
};

// A group's place among the block-wide syncs of the body: after `first` of them, and before the
// next one or, for a group between a release cluster.arrive() and its cluster.wait(), which the
// arrival precedes and the wait follows, before the one after it (`last` = `first` + 1). Two groups
// whose places overlap are not ordered.
struct Group {
  const ir::ThreadGroupNode* node;
  int first, last;
  GroupAccesses accesses;
};

[[noreturn]] void report(const ir::StmtNode& read, const ir::SharedTensorNode& tile, const ir::StmtNode& write,
                         const ir::ThreadGroupNode& writer, const ir::ThreadGroupNode& reader) {
  throw Error(read.loc,
              fmt::format("{} reads the shared tile allocated at {} in threads {}..{}, which threads {}..{} "
                          "write at {}, and nothing orders the write and the read: no sync() of the whole "
                          "block lies between their thread groups and neither uses an mbarrier; sync() "
                          "between the groups, or hand the tile over with an mbarrier arrival and wait",
                          ir::call_name(read.kind), tile.loc.str(), reader.begin, reader.begin + reader.count - 1,
                          writer.begin, writer.begin + writer.count - 1, write.loc.str()));
}

}  // namespace

ir::Kernel check_shared_handoffs(const ir::Kernel& k, const PassContext&) {
  const std::set<const ir::SharedTensorNode*> barriers = barrier_arrays(*k);
  std::vector<ir::Stmt> body;
  flatten(k->body, body);
  std::vector<Group> groups;
  int syncs = 0;
  // A release cluster.arrive() at the top awaits its cluster.wait(), and the groups since it. A
  // sync() between them orders the groups on its sides itself.
  bool released = false;
  size_t since_arrival = 0;
  for (const ir::Stmt& s : body) {
    if (s->kind == ir::NodeKind::ClusterArrive) {
      released = !static_cast<const ir::ClusterArriveNode&>(*s).relaxed;
      since_arrival = groups.size();
      continue;
    }
    if (s->kind == ir::NodeKind::ClusterWait) {
      if (released) {
        for (size_t g = since_arrival; g < groups.size(); ++g) groups[g].last = syncs + 1;
        ++syncs;
      }
      released = false;
      continue;
    }
    if (BlockSyncs(s).found) {
      ++syncs;
      released = false;
    }
    if (s->kind != ir::NodeKind::ThreadGroup) continue;
    const auto& g = static_cast<const ir::ThreadGroupNode&>(*s);
    groups.push_back(Group{&g, syncs, syncs, GroupAccesses(g, barriers)});
  }
  for (const Group& writer : groups)
    for (const Group& reader : groups) {
      const ir::ThreadGroupNode &w = *writer.node, &r = *reader.node;
      const bool disjoint = w.begin + w.count <= r.begin || r.begin + r.count <= w.begin;
      const bool ordered = writer.last < reader.first || reader.last < writer.first;
      if (!disjoint || ordered || writer.accesses.uses_barriers || reader.accesses.uses_barriers) continue;
      for (const auto& [written, write] : writer.accesses.writes)
        for (const auto& [read_tile, read] : reader.accesses.reads)
          if (certainly_overlap(written, read_tile)) report(*read, *read_tile->allocation(), *write, w, r);
    }
  return k;
}

}  // namespace tessel::passes
