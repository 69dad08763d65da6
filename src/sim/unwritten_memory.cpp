// The likely cause of a read of shared memory that was never written, from the kernel's code.
#include "unwritten_memory.hpp"

#include <algorithm>
#include <vector>

#include "code_sites.hpp"
#include "machine.hpp"
#include "tessel/ir/visitor.hpp"

namespace tessel::sim {

namespace {

// The instructions that write one allocation: "store_shared at k.cpp:30 (threads 32..63)".
class Writers : public ir::Visitor {
 public:
  Writers(const ir::KernelNode& k, const ir::SharedTensorNode* allocation, int reader_warp)
      : allocation_(allocation), reader_warp_(reader_warp) {
    visit_kernel(k);
  }
  std::vector<std::string> generic, other_blocks, tma;

 protected:
  void visit(const ir::StoreSharedNode& n) override { add(n.rank ? other_blocks : generic, n.dst, n); }
  void visit(const ir::StoreSharedAsyncNode& n) override { add(other_blocks, n.dst, n); }
  void visit(const ir::CopyAsyncNode& n) override { add(generic, n.dst, n); }
  void visit(const ir::TmaLoadNode& n) override { add(tma, n.dst, n); }
  void visit(const ir::TmaBulkLoadNode& n) override { add(tma, n.dst, n); }

 private:
  void add(std::vector<std::string>& to, const ir::SharedTensor& tile, const ir::StmtNode& s) {
    if (tile->allocation() != allocation_) return;
    const ir::ThreadRange g = position().group();
    // The reader's own warp wrote before it, in program order: no handoff is missing there.
    const bool only_the_readers_warp = g.begin >= 32 * reader_warp_ && g.begin + g.count <= 32 * (reader_warp_ + 1);
    if (&to == &generic && only_the_readers_warp) return;
    // An instruction unrolled by C++ is one site of the user's code, named once.
    std::string site = describe_site(s, g);
    if (std::find(to.begin(), to.end(), site) == to.end()) to.push_back(std::move(site));
  }
  const ir::SharedTensorNode* allocation_;
  int reader_warp_;
};

}  // namespace

std::string unwritten_memory_cause(const Cta& cta, int64_t byte, int reader_warp, bool remote) {
  const ir::SharedTensorNode* allocation = nullptr;
  for (const auto& [a, offset] : cta.shared_offsets)
    if (byte >= offset && byte < offset + a->nbytes()) allocation = a;
  if (!allocation) return "";
  const Writers writers(cta.kernel, allocation, remote ? -1 : reader_warp);
  std::string cause;
  if (!writers.generic.empty())
    cause += fmt::format(
        "; {} writes this tile, and nothing ordered that write before this read: is a {} or an "
        "mbarrier handoff missing between them?",
        fmt::join(writers.generic, ", "), remote ? "cluster.sync()" : "sync()");
  if (!writers.other_blocks.empty())
    cause += fmt::format(
        "; {} writes this tile from another block of the cluster, and nothing ordered that write before this "
        "read: is a cluster.sync() or an mbarrier handoff missing between them?",
        fmt::join(writers.other_blocks, ", "));
  if (!writers.tma.empty())
    cause += fmt::format(
        "; {} loads this tile: did the wait before this read pass on a phase that completed with "
        "fewer transaction bytes than the load's box, or on another phase than the load's?",
        fmt::join(writers.tma, ", "));
  return cause;
}

void check_shared_written(Warp& w, const Cta& owner, const SharedAddress& a, int bytes, int thread,
                          const SourceLoc& loc, std::string_view access, std::string_view doing) {
  const bool remote = &owner != &w.cta;
  const int64_t in_tile = a.byte - w.cta.shared_offsets.at(a.allocation);
  for (int b = 0; b < bytes; ++b) {
    const size_t byte = size_t(a.byte + b);
    if (!owner.written[byte])
      throw Error(loc, fmt::format("{} of shared memory that was never written: the allocation at {}, byte {} of the "
                                   "allocation{}, read by thread {} of block {}; store to it (and {}) before {}{}",
                                   access, a.allocation->loc.str(), in_tile,
                                   remote ? fmt::format(" in block {}", owner.block_name()) : "", thread,
                                   w.cta.block_name(), remote ? "cluster.sync()" : "sync()", doing,
                                   unwritten_memory_cause(w.cta, a.byte + b, w.id, remote)));
    // The bytes were last stored to as a tile that free_shared has since given up to this one. (A
    // freed tile that reads the bytes of the tile after it races with its writes instead.)
    const ir::SharedTensorNode* before = owner.written_by[byte];
    if (!before || before == a.allocation) continue;
    if (const auto freed = owner.freed_at.find(before); freed != owner.freed_at.end())
      throw Error(loc, fmt::format("{} of shared memory that the allocation at {} never wrote: byte {} of it{} still "
                                   "holds what the tile allocated at {} left there (freed at {}), whose bytes it "
                                   "took; read by thread {} of block {}; store to it (and {}) before {}",
                                   access, a.allocation->loc.str(), in_tile,
                                   remote ? fmt::format(" in block {}", owner.block_name()) : "", before->loc.str(),
                                   freed->second->str(), thread, w.cta.block_name(),
                                   remote ? "cluster.sync()" : "sync()", doing));
  }
}

void check_shared_read(Warp& w, const Cta& owner, const SharedAddress& a, int bytes, int lane, const SourceLoc& loc,
                       std::string_view doing) {
  owner.check_not_in_flight(a.byte, bytes, false, loc, w.thread(lane), nullptr, false, &w.clock);
  check_shared_written(w, owner, a, bytes, w.thread(lane), loc, "read", doing);
}

}  // namespace tessel::sim
