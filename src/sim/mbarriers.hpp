// The mbarriers of a block (PTX ISA 9.7.13.15), each an 8-byte word of shared memory named by its
// byte offset. A barrier counts completed phases; the current phase completes, atomically with
// its last arrival or transaction, once no arrival is pending and the transaction count is 0,
// and the next phase then expects the barrier's count again.
//
// Asynchronous agents that signal a barrier when their work lands (the TMA engine) call
// `complete_tx` with the barrier's shared byte.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "happens_before.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::sim {

// A TMA load whose bytes count towards `phase` of a barrier: its issuing line, and whether any
// element of its box lies inside the tensor (V2's prefetches past K lie wholly outside).
struct UnobservedLoad {
  int64_t phase = 0;
  const SourceLoc* issued_at = nullptr;
  bool inside_tensor = false;
  std::string_view operation = "tma.global_to_shared";  // for messages
};

struct MbarrierState {
  int64_t phase = 0;     // completed phases; waits see its parity
  int64_t expected = 0;  // arrivals per phase
  int64_t pending = 0;   // arrivals missing in the current phase
  int64_t tx = 0;        // transaction bytes expected and not yet completed (negative: completed early)
  const ir::SharedTensorNode* array = nullptr;  // where the barrier was allocated, for messages
  int index = 0;
  const SourceLoc* initialized_at = nullptr;
  // Happens-before: the barrier's actors (their clocks count completed phases), what the current
  // phase's arrivals released, and what the completed phases published to waiters. What other
  // blocks of the cluster release or land on it (remote arrivals, multicast commits, their TMA
  // loads) is kept apart, under `peer_actor`: only a wait of cluster scope acquires it (a .cta
  // acquire and a release by a thread of another block are not morally strong, PTX ISA 8.x §8).
  uint32_t actor = 0, peer_actor = 0;
  VectorClock arrivals = {}, peer_arrivals = {}, released = {}, released_to_cluster = {};
  // The loads that complete bytes on a phase no wait has seen completed yet.
  std::vector<UnobservedLoad> loads_not_observed = {};
  // The loads issued to complete bytes on the barrier that have not landed, each with the phase it
  // was issued in: a phase that completes before one of its own has landed was announced too few
  // bytes.
  std::vector<UnobservedLoad> loads_in_flight = {};
  // The lines that announced the current phase's transaction bytes, and how many each.
  std::vector<std::pair<const SourceLoc*, int64_t>> announced = {};
  // The arrival that completed the last phase, when an arrival did.
  const SourceLoc* completed_by = nullptr;
};

// "barrier 1 of the array allocated at k.cpp:12", or of a helper-class member: "barrier 1 of
// empty_barriers of the Pipeline constructed at k.cpp:56 (the array allocated at pipeline.hpp:32)"
std::string barrier_name(const ir::SharedTensorNode& array, int index);

class Mbarriers {
 public:
  // Who performs an operation, for messages: the user's line and the thread in its block.
  struct Origin {
    const SourceLoc* loc;
    int thread;
    std::string_view block;
  };

  // `actor` orders what the block itself releases and lands on the barrier, `peer_actor` what
  // other blocks of its cluster do (the same actor outside clusters).
  void init(int64_t byte, const ir::SharedTensorNode& array, int index, int64_t count, uint32_t actor,
            uint32_t peer_actor, const Origin& by);
  // `count` arrivals on the current phase, after raising its transaction count by `tx_bytes`
  // (arrive.expect_tx), releasing `clock` (the arriving warp's, of another block of the cluster
  // when `from_peer`); `operation` names the instruction in messages. Returns whether the arrival
  // completed the phase.
  bool arrive(int64_t byte, int64_t count, int64_t tx_bytes, const VectorClock& clock, bool from_peer,
              std::string_view operation, const Origin& by);
  void expect_tx(int64_t byte, int64_t bytes, const Origin& by);
  // `bytes` of transactions landed (an asynchronous copy's complete-tx); `issued_at` is the line
  // of the operation that carried them.
  void complete_tx(int64_t byte, int64_t bytes, const SourceLoc& issued_at);
  // test_wait.parity: whether the phase of parity `parity` completed, i.e. the current phase's
  // parity differs (a fresh barrier's "phase before phase 0", parity 1, counts as completed).
  bool phase_completed(int64_t byte, int64_t parity) const;
  // What an acquiring wait of `scope` on the barrier acquires: what its completed phases published,
  // from this block only (cta) or from the whole cluster.
  const VectorClock& released(int64_t byte, ir::WaitScope scope) const;
  // The access an asynchronous write that completes bytes on the barrier now is: one of the
  // phase in progress, which a wait for that phase orders (of cluster scope, `from_peer`: when the
  // block that issued it is another of the cluster).
  Epoch landing(int64_t byte, bool from_peer) const;

  // A load issued at `issued_at` will complete bytes on the barrier's current phase; its bytes'
  // complete_tx names the same line. Returns what a report of the load in flight adds when no
  // bytes were announced in that phase and an arrival completed the one before: its readers may
  // have waited for that one.
  std::string expect_load(int64_t byte, const SourceLoc& issued_at, bool inside_tensor,
                          std::string_view operation = "tma.global_to_shared");
  // A wait on the barrier passed: it saw every phase completed so far.
  void observed(int64_t byte);
  // The loads whose phase no wait saw completed, with their barriers.
  std::vector<std::pair<const MbarrierState*, UnobservedLoad>> loads_never_waited_for() const;

  // The barrier at `byte`; a user error when it was never initialized.
  const MbarrierState& at(int64_t byte, const ir::SharedTensorNode& array, int index, std::string_view operation,
                          const Origin& by) const;
  const std::map<int64_t, MbarrierState>& all() const { return barriers_; }

 private:
  MbarrierState& initialized(int64_t byte, const SourceLoc& loc);
  void complete_phase_if_done(MbarrierState& b);

  std::map<int64_t, MbarrierState> barriers_;
};

}  // namespace tessel::sim
