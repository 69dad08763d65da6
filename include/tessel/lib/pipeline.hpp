#pragma once

#include <vector>

#include "tessel/tessel.hpp"

namespace tessel {

// The producer-consumer ring of seed 000, as a tessel::Class: `num_stages` slots, each with an
// "empty" barrier (the consumers arrive once they are done with the slot; the producer waits on
// it before refilling) and a "full" barrier (the producer's arrivals and transactions fill it; the
// consumers wait on it). Each side keeps its own stage and phase, and flips the phase each time
// its stage wraps around.
// Both sides wait with acquire semantics, which orders what the other side published before its
// arrival or landed with its bytes (the seed waits relaxed, which orders nothing: docs/seeds.md).
// Where blocks of a cluster arrive on or land bytes for each other's barriers, the waits need
// cluster scope.
//
// With Turns{c}, the fillings go to c consumers in turn, each waiting on and releasing only its
// own: filling n is consumer n % c's, in the stages n % c, n % c + c, ... that are its alone, so
// that every stage is filled and consumed in order. Filling n is then in stage n % num_stages, as
// without turns, so the producer advances as it always does, and each consumer by c fillings. A stage shared by
// consumers in turn would let one of them come to it a lap ahead of the filling before its own, which bulk copies may
// land after later ones; a wait on its phase's parity would then pass on the phase before (parity tells two phases
// apart, not three), and the consumer would read the stage while it is still written.
struct Turns {
  int consumers = 1;
};

struct Pipeline : Class {
  int num_stages;
  int turns = 1;
  MbarrierArray empty_barriers;
  MbarrierArray full_barriers;
  Int32 producer_stage = 0;
  Int32 consumer_stage = 0;
  UInt32 producer_phase = mbarrier.producer_initial_phase;
  UInt32 consumer_phase = mbarrier.consumer_initial_phase;
  WaitScope scope;

  // `constructed_at`, the user's line, names this instance in the simulator's reports.
  explicit Pipeline(int num_stages, int producer_arrive_count = 1, int consumer_arrive_count = 1,
                    WaitScope scope = WaitScope::cta, loc_t constructed_at = loc_t::current())
      : Pipeline(num_stages, Turns{}, producer_arrive_count, consumer_arrive_count, scope, constructed_at) {}
  Pipeline(int num_stages, Turns turns, int producer_arrive_count = 1, int consumer_arrive_count = 1,
           WaitScope scope = WaitScope::cta, loc_t constructed_at = loc_t::current())
      : Class("Pipeline", constructed_at),
        num_stages(num_stages),
        turns(turns.consumers),
        empty_barriers(mbarrier.alloc(std::vector<int>(num_stages, consumer_arrive_count), member("empty_barriers"))),
        full_barriers(mbarrier.alloc(std::vector<int>(num_stages, producer_arrive_count), member("full_barriers"))),
        scope(scope) {
    if (turns.consumers < 1 || num_stages % turns.consumers != 0)
      throw Error(SourceLoc::from(constructed_at),
                  fmt::format("Pipeline: {} stages cannot be shared by {} consumers in turn; each takes a whole number "
                              "of stages of its own (num_stages a multiple of Turns::consumers)",
                              num_stages, turns.consumers));
  }

  // Waits until the producer's stage is free (the consumers are done with it). A wait that never
  // ends is reported at the caller's line.
  void producer_acquire(loc_t called_at = loc_t::current()) {
    mbarrier.wait(empty_barriers[producer_stage], producer_phase, WaitSemantics::acquire, scope, called_at);
  }
  // The barrier that announces the producer's stage as filled.
  Mbarrier producer_barrier() const { return full_barriers[producer_stage]; }
  void producer_advance() {
    producer_stage = (producer_stage + 1) % num_stages;
    producer_phase = producer_phase ^ (producer_stage == 0);
  }

  // Waits until the consumers' stage is filled.
  void consumer_acquire(loc_t called_at = loc_t::current()) {
    mbarrier.wait(full_barriers[consumer_stage], consumer_phase, WaitSemantics::acquire, scope, called_at);
  }
  // The barrier that announces the consumers' stage as consumed.
  Mbarrier consumer_barrier() const { return empty_barriers[consumer_stage]; }
  // Moves the consumers to their next filling: the next one, or with Turns{c} the c-th next.
  void consumer_advance() {
    consumer_stage = (consumer_stage + turns) % num_stages;
    consumer_phase = consumer_phase ^ (consumer_stage < turns);
  }
  // Moves the consumers to the ring's `position`-th filling, counted from 0: for consumers that
  // take the fillings in turn (Turns), each waiting on and releasing only its own.
  void consumer_seek(const Int32& position) {
    consumer_stage = position % num_stages;
    consumer_phase = cast<uint32_t>(position / num_stages % 2) ^ mbarrier.consumer_initial_phase;
  }
};

}  // namespace tessel
