// The wgmma unit of a block: the warpgroup tensor core as an asynchronous agent. Each warp issues
// its share of a wgmma.mma (its 16 rows of every m64 instruction) and commits it into per-warp
// groups, as each warp of the warpgroup executes the same wgmma instructions; an mma reads its
// shared operands through its matrix descriptors, its register operands, and adds into its
// accumulator when it completes, which the scheduler chooses, in issue order per warp, no later
// than the wgmma.wait_group that retires its group. Until that wait returns, whenever the mma
// completed, its accumulator and register A belong to it (touching them is reported), and so do
// its shared operands (writing them is): the program may not rely on an early completion.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "async_agent.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"

namespace tessel::sim {

class Cta;

class WgmmaUnit final : public AsyncAgent {
 public:
  explicit WgmmaUnit(Cta& cta);

  // Warp `w` issues its share of `n`.
  void issue(Warp& w, const ir::WgmmaMmaNode& n, Mask mask);
  void fence(const Warp& w);
  void commit(const Warp& w);
  // The warp's committed groups from its oldest incomplete one on (wgmma.wait_group's count).
  int pending_groups(const Warp& w) const;
  // After the warp's wgmma.wait_group(pending) returned: its mma in the groups that wait covers
  // give their operands back.
  void retire(const Warp& w, int pending);

  // Whether the kernel has a wgmma.mma, so that before_instruction has work to do.
  bool watching() const { return watching_; }
  // Called before `w` runs any instruction: reports one that touches a register operand of an
  // mma in flight, and records the register tiles accessed since the warp's last wgmma.fence.
  void before_instruction(const Warp& w, const ir::StmtNode& s);
  // An mma in flight that reads one of shared bytes [byte, byte + n): its line, and its warp with
  // that warp's clock when it issued it.
  struct Reader {
    const SourceLoc* issued_at;
    const Warp* warp;
    Clock issued;
    uint64_t steps_before;  // the warp's steps noted before the issue (Warp::steps_noted)
  };
  std::optional<Reader> reading(int64_t byte, int n) const;

  std::string_view engine() const override { return "the wgmma unit"; }

  std::string_view operation() const override { return "wgmma.mma"; }
  // The write may come from another warpgroup, which the issuer must release only once its mma is done.
  std::string_view wait_advice() const override {
    return "wait for it with wgmma.wait_group in the warpgroup that issued it, before that warpgroup lets this "
           "write happen (the mbarrier arrival that frees the stage, or a sync())";
  }
  bool busy() const override;
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;

 private:
  // One instruction of the mma: its descriptors and where its rows sit in the accumulator.
  struct Instruction {
    WgmmaDescriptor a, b;  // `a` unused in the RS form
    int row0;              // the first accumulator row of the m64 instruction
    int k0;                // its first column of k
  };
  struct Mma {
    Warp* warp;
    Clock issued;           // the warp's clock at the issue
    uint64_t steps_before;  // and its steps noted before it
    const ir::WgmmaMmaNode* node;
    int group;    // index among the warp's groups; the open group's is `committed`
    int quarter;  // the warp's rows of each m64 instruction: [16 * quarter, 16 * quarter + 16)
    std::vector<Instruction> instructions;
    std::vector<int64_t> bytes_read;  // shared bytes, for the overwrite check
  };
  struct WarpState {
    std::deque<std::unique_ptr<Mma>> issued;  // not retired, in issue order
    size_t completed = 0;                     // issued[0, completed) have completed
    int committed = 0;
    // Register tiles accessed since the last wgmma.fence, with the line of the last access.
    std::map<const ir::RegisterTensorNode*, const SourceLoc*> accessed;
  };
  void complete(Mma& mma);
  // acc (+)= a @ b over the warp's rows, summed as `Sums` (tensor_core_sums.hpp) says.
  template <class Sums> void multiply(Mma& mma);
  // Completes the first `count` mma of `warp`.
  void complete_first(WarpState& warp, size_t count);
  WgmmaDescriptor descriptor(Warp& w, const ir::SharedTensor& t, const ir::MmaOperand& o, int row, int k, Mask mask,
                             std::string_view name, const SourceLoc& loc) const;
  static int64_t address(const ir::MmaOperand& o, const WgmmaDescriptor& d, int row, int k, int elem_bytes);

  Cta& cta_;
  bool watching_ = false;
  std::vector<WarpState> warps_;
  std::vector<uint16_t> readers_;  // per shared byte: mma in flight reading it
};

}  // namespace tessel::sim
