// Asynchronous agents: engines that perform operations after the issuing instruction has retired
// (the cp.async unit, the TMA engine, the wgmma unit, the tcgen05 tensor core). Each block has its
// own.
// An agent owns its operations in flight; the scheduler decides when they complete (see
// CompletionOrder), and a wait condition says which of them a warp needs.
#pragma once

#include <memory>
#include <random>
#include <string_view>
#include <vector>

#include "happens_before.hpp"
#include "wait_condition.hpp"

namespace tessel::sim {

class AsyncAgent;

// The path through which an access reaches shared memory. cp.async writes through the generic
// proxy, as ordinary stores do; TMA, wgmma and tcgen05 operands go through the async proxy, and
// crossing proxies on one location needs a proxy fence.
enum class Proxy { Generic, Async };

// A write to shared memory that an agent has issued and not yet completed. While it is in flight
// its bytes belong to it: any other access to them is reported.
struct InFlightWrite {
  const AsyncAgent* agent;
  Proxy proxy;
  int64_t begin, end;          // bytes [begin, end) of the block's shared memory
  const SourceLoc* issued_at;  // the issuing instruction's user line
  int thread;                  // the issuing thread, within its block
  VectorClock issuer = {};     // the issuing warp's clock when it issued
  uint32_t issuer_warp = 0;    // its actor, whose waits a race report may name
  // For messages, when not the agent's write_operation() and write_advice().
  std::string_view operation = {}, advice = {};
  std::string_view operation_name() const;
  std::string_view advice_text() const;
};

// A read of shared memory that an agent has issued and not yet done (a TMA store's source). While
// it is in flight, writes to its bytes are reported.
struct InFlightRead {
  const AsyncAgent* agent;
  int64_t begin, end;               // bytes [begin, end) of the block's shared memory
  const SourceLoc* issued_at;       // the issuing instruction's user line
  int thread;                       // the issuing thread, within its block
  std::string_view operation = {};  // for messages, when not the agent's operation()
  std::string_view advice = {};     // for messages, when not the agent's wait_advice()
};

class AsyncAgent {
 public:
  virtual ~AsyncAgent() = default;

  // The engine, as a timeline names its track ("the TMA engine").
  virtual std::string_view engine() const = 0;
  // For messages: the user's name of the operation ("copy_async") and how to wait for it.
  virtual std::string_view operation() const = 0;
  virtual std::string_view wait_advice() const = 0;

  // The same for the agent's writes of shared memory in flight, when another operation of the
  // agent makes them (the TMA engine's loads).
  virtual std::string_view write_operation() const { return operation(); }
  virtual std::string_view write_advice() const { return wait_advice(); }

  virtual bool busy() const = 0;  // operations in flight
  virtual void complete_all() = 0;
  // Completes each operation in flight or leaves it, as `rng` draws.
  virtual void complete_at_random(std::mt19937_64& rng) = 0;
  // Completes the operations `warp` needs for `condition` to hold; false when it holds none.
  virtual bool complete_needed_by(const Warp& warp, const WaitCondition& condition) = 0;
  // A read in flight of one of the shared bytes [begin, end), or null; agents that only write
  // shared memory have none.
  virtual const InFlightRead* reading(int64_t /*begin*/, int64_t /*end*/) const { return nullptr; }
};

// Completes the operations of `ops` that `pick` answers true for with `land`, keeping the others
// in issue order; whether any completed.
template <class Op, class Pick, class Land>
bool complete_ops(std::vector<std::unique_ptr<Op>>& ops, Pick&& pick, Land&& land) {
  bool completed = false;
  size_t kept = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (pick(*ops[i])) {
      land(*ops[i]);
      completed = true;
    } else {
      std::swap(ops[kept++], ops[i]);
    }
  }
  ops.resize(kept);
  return completed;
}

inline std::string_view InFlightWrite::operation_name() const {
  return operation.empty() ? agent->write_operation() : operation;
}
inline std::string_view InFlightWrite::advice_text() const { return advice.empty() ? agent->write_advice() : advice; }

}  // namespace tessel::sim
