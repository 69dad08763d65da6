// The scheduler: runs groups of blocks (their warps as fibers, their asynchronous agents) round by
// round: the grid group after group, or, for a kernel that cancels launches, from a launch queue
// with a few groups resident at a time.
#include <cstdlib>
#include <optional>

#include "machine.hpp"
#include "tessel/ir/derived_params.hpp"
#include "tessel/ir/mutator.hpp"
#include "timeline.hpp"

namespace tessel::sim {

namespace {

constexpr size_t kFiberStack = 512 * 1024;

// makecontext passes int arguments only: the warp pointer travels as two halves.
void fiber_entry(unsigned lo, unsigned hi) {
  Warp* w = reinterpret_cast<Warp*>(uintptr_t(lo) | uintptr_t(hi) << 32);
  try {
    const Mask all = 0xffffffffu;
    w->exec(w->cta.kernel.body, all);
  } catch (...) {
    w->error = std::current_exception();
  }
  w->state = Warp::State::Done;
  swapcontext(&w->context, &w->cta.scheduler.context);
}

void start_fiber(Warp& w) {
  w.stack.resize(kFiberStack);
  getcontext(&w.context);
  w.context.uc_stack.ss_sp = w.stack.data();
  w.context.uc_stack.ss_size = w.stack.size();
  w.context.uc_link = nullptr;
  const uintptr_t p = reinterpret_cast<uintptr_t>(&w);
  makecontext(&w.context, reinterpret_cast<void (*)()>(fiber_entry), 2, unsigned(p & 0xffffffffu), unsigned(p >> 32));
}

bool uses_cluster_launch_control(const ir::KernelNode& k) {
  bool uses = false;
  ir::walk(k.body, [&](const ir::StmtNode& s) { uses |= s.kind == ir::NodeKind::ClcTryCancel; });
  return uses;
}

// A zeroed scratch buffer is zero at every launch only if each launch leaves it so.
void check_zeroed_scratch(const ir::KernelNode& k, const Launch& launch, int multiprocessors) {
  for (size_t i = 0; i < k.derived_params.size(); ++i) {
    const ir::DerivedParam& p = k.derived_params[i];
    if (p.value != ir::DerivedValue::ZeroedScratch) continue;
    const int64_t bytes = ir::scratch_bytes(k, p, launch.args, multiprocessors);
    const auto* data = reinterpret_cast<const uint8_t*>(launch.args[k.call_params() + i].i);
    for (int64_t b = 0; b < bytes; ++b)
      if (data[b] != 0) {
        const int bits = dtype_bits(p.param->type.dtype);
        throw Error(p.loc, fmt::format("kernel {}: the zeroed global_scratch made here is not zero when the launch "
                                       "ends (byte {}, in element {}, is 0x{:02x}); the next launch expects zeros, "
                                       "so put back every value the launch changed",
                                       k.name, b, b * 8 / bits, data[b]));
      }
  }
}

}  // namespace

void Warp::wait(const SourceLoc& at, WaitCondition condition) {
  waiting = Wait{&at, condition};
  state = State::Blocked;
  swapcontext(&context, &cta.scheduler.context);
}

void Warp::note(std::deque<Step>& steps, const SourceLoc& at) {
  // A few suffice: a report names the latest before or after an mma's issue.
  constexpr size_t kept = 8;
  steps.push_back({&at, clock[actor], ++steps_noted});
  if (steps.size() > kept) steps.pop_front();
}

void Warp::poll(const SourceLoc& at, uint64_t observed) {
  polled_unchanged = polled_at == &at && polled == observed;
  polled_at = &at;
  polled = observed;
  swapcontext(&context, &cta.scheduler.context);
}

Scheduler::Scheduler(const ir::KernelNode& k, const Launch& launch, std::deque<std::array<int, 3>> groups,
                     std::array<int, 3> group_shape, int resident, const Options& options, LayoutTables& tables,
                     HappensBefore& happens_before, RunWarnings& warnings)
    : happens_before(happens_before),
      warnings(warnings),
      kernel_(k),
      launch_(launch),
      tables_(tables),
      launch_queue_(std::move(groups)),
      group_shape_(group_shape),
      resident_(resident),
      order_(options.completion_order()),
      random_interleaving_(options.seed != 0),
      rng_(options.seed) {}

void Scheduler::launch_group(std::array<int, 3> first) {
  const size_t cluster_first = ctas_.size();
  for (int z = first[2]; z < first[2] + group_shape_[2]; ++z)
    for (int y = first[1]; y < first[1] + group_shape_[1]; ++y)
      for (int x = first[0]; x < first[0] + group_shape_[0]; ++x) {
        const std::array<int, 3> block = {x, y, z};
        ctas_.push_back(std::make_unique<Cta>(*this, kernel_, launch_, block, tables_));
        Cta& cta = *ctas_.back();
        cta.cluster_rank = int(ir::cluster_builtin_value(ir::BuiltinKind::ClusterBlockRank, block, kernel_.cluster));
        cta.cluster_first = cluster_first;
        for (auto& w : cta.warps) {
          start_fiber(*w);
          warps_.push_back(w.get());
        }
      }
}

// Groups are resident from their launch until every warp of theirs has finished.
void Scheduler::launch_groups_while_room() {
  if (launch_queue_.empty()) return;
  const size_t group_blocks = size_t(group_shape_[0] * group_shape_[1] * group_shape_[2]);
  int resident = 0;
  for (size_t first = 0; first < ctas_.size(); first += group_blocks)
    for (size_t b = first; b < first + group_blocks; ++b)
      if (!ctas_[b]->ended()) {
        ++resident;
        break;
      }
  for (; resident < resident_ && !launch_queue_.empty(); ++resident) {
    launch_group(launch_queue_.front());
    launch_queue_.pop_front();
  }
}

std::optional<std::array<int, 3>> Scheduler::cancel_cluster() {
  if (launch_queue_.empty()) return std::nullopt;
  const size_t pick = order_ == CompletionOrder::Seeded ? size_t(rng_() % launch_queue_.size()) : 0;
  const std::array<int, 3> first = launch_queue_[pick];
  launch_queue_.erase(launch_queue_.begin() + std::ptrdiff_t(pick));
  return first;
}

uint64_t Scheduler::pick_write(uint64_t oldest, uint64_t newest) {
  if (oldest >= newest) return newest;
  switch (order_) {
    case CompletionOrder::Eager: return newest;
    case CompletionOrder::Lazy: return oldest;
    case CompletionOrder::Seeded: return oldest + rng_() % (newest - oldest + 1);
  }
  return newest;
}

Cta& Scheduler::cluster_peer(const Cta& cta, int rank) {
  if (!kernel_.clustered()) {
    TESSEL_CHECK(rank == 0, "block rank {} in kernel {} without clusters", rank, kernel_.name);
    return const_cast<Cta&>(cta);
  }
  const size_t index = cta.cluster_first + size_t(rank);
  TESSEL_CHECK(rank >= 0 && index < ctas_.size() && ctas_[index]->cluster_rank == rank,
               "block rank {} of a cluster of {} blocks", rank, kernel_.cluster_blocks());
  return *ctas_[index];
}

void Scheduler::issued(AsyncAgent& agent) {
  switch (order_) {
    case CompletionOrder::Eager: agent.complete_all(); return;
    case CompletionOrder::Lazy: return;
    case CompletionOrder::Seeded: agent.complete_at_random(rng_); return;
  }
}

void Scheduler::run() {
  std::vector<Warp*> ready;
  size_t next = 0;
  for (;;) {
    launch_groups_while_room();
    if (order_ == CompletionOrder::Seeded)
      for (auto& cta : ctas_)
        for (AsyncAgent* a : cta->agents)
          if (a->busy()) a->complete_at_random(rng_);
    release_warps_whose_wait_holds();
    ready.clear();
    bool live = false;
    for (Warp* w : warps_) {
      if (w->state == Warp::State::Ready) ready.push_back(w);
      live |= w->state != Warp::State::Done;
    }
    if (!live) break;
    if (ready.empty()) {
      // Lazy completion happens here, when nothing else can run; work nobody waits for is
      // completed too before calling it a deadlock, whatever it could release.
      if (complete_work_a_waiting_warp_needs() || complete_all_work() || time_out_try_waits()) continue;
      throw deadlock_error(kernel_, ctas_);
    }
    Warp* w = random_interleaving_ ? ready[rng_() % ready.size()] : ready[next++ % ready.size()];
    w->polled_unchanged = false;
    swapcontext(&context, &w->context);
    if (timeline) {
      timeline->turn();
      timeline->observe(ctas_);
    }
    if (w->error) std::rethrow_exception(w->error);
    // Every ready warp gets many turns before a spin is called endless, whichever order they run in.
    unchanged_polls_ = w->state == Warp::State::Ready && w->polled_unchanged ? unchanged_polls_ + 1 : 0;
    if (unchanged_polls_ > 64 * int64_t(ready.size()) + 64) {
      bool busy = false;
      for (auto& cta : ctas_)
        for (AsyncAgent* a : cta->agents) busy |= a->busy();
      if (!busy) report_endless_spin();
    }
    if (w->state == Warp::State::Done) w->cta.complete_cluster_barrier_if_all_arrived();
  }
  // A block's shared memory goes to the next block when it ends: a store still reading it would
  // read another block's data.
  for (auto& cta : ctas_) {
    cta->tma.check_no_store_reading(cta->block_name());
    cta->tensor_memory.check_released();
    cta->clc.check_none_pending(cta->block_name());
    for (const auto& [barrier, load] : cta->mbarriers.loads_never_waited_for()) {
      if (load.inside_tensor) {
        // What the operation is, and what it did, as the message names them.
        const bool tma_load = load.operation == "tma.global_to_shared";
        const bool store = load.operation == "store_shared_async";
        throw Error(*load.issued_at,
                    fmt::format("{}: this {} block {} was never waited for: no wait saw phase {} of {} complete "
                                "before the block ended, so nothing read what it {} (does a consumer loop end a step "
                                "before its producer's?)",
                                load.operation,
                                tma_load ? "load of elements of the tensor by"
                                : store  ? "store into"
                                         : "copy by",
                                cta->block_name(), load.phase, barrier_name(*barrier->array, barrier->index),
                                tma_load ? "loaded"
                                : store  ? "stored"
                                         : "copied"));
      }
      warnings.load_never_waited_for(*load.issued_at, cta->block_name());
    }
  }
  complete_all_work();  // writes nobody waited for still land before the blocks end
  if (timeline) timeline->end_blocks(ctas_);
}

void Scheduler::report_endless_spin() const {
  std::vector<std::string> spinning;
  const SourceLoc* first = nullptr;
  for (const Warp* w : warps_)
    if (w->state == Warp::State::Ready && w->polled_at) {
      spinning.push_back(fmt::format("warp {} of block {} at {}", w->id, w->cta.block_name(), w->polled_at->str()));
      if (!first) first = w->polled_at;
    }
  throw Error(*first, fmt::format("deadlock: the running warps spin on atomic reads that see nothing change ({}), and "
                                  "no other warp or asynchronous operation can change what they read. The simulator "
                                  "runs a grid's blocks group after group in launch order (sim::Options::"
                                  "blocks_per_group), so a block may wait only for blocks launched before it, as on a "
                                  "GPU that cannot hold every block at once",
                                  fmt::join(spinning, "; ")));
}

void Scheduler::release_warps_whose_wait_holds() {
  for (auto& cta : ctas_)
    for (auto& w : cta->warps)
      if (w->state == Warp::State::Blocked && holds(*w, w->waiting.until)) w->state = Warp::State::Ready;
}

bool Scheduler::complete_work_a_waiting_warp_needs() {
  for (auto& cta : ctas_)
    for (auto& w : cta->warps) {
      if (w->state != Warp::State::Blocked) continue;
      bool completed = false;
      for (auto& owner : ctas_)
        for (AsyncAgent* a : owner->agents) completed |= a->complete_needed_by(*w, w->waiting.until);
      if (completed) return true;
    }
  return false;
}

bool Scheduler::complete_all_work() {
  bool completed = false;
  for (auto& cta : ctas_)
    for (AsyncAgent* a : cta->agents)
      if (a->busy()) {
        a->complete_all();
        completed = true;
      }
  return completed;
}

bool Scheduler::time_out_try_waits() {
  // What could have changed since the last time-out: the barriers, and where each warp waits.
  std::vector<int64_t> states;
  for (auto& cta : ctas_) {
    for (const auto& [byte, b] : cta->mbarriers.all()) states.insert(states.end(), {byte, b.phase, b.pending, b.tx});
    for (auto& w : cta->warps)
      states.push_back(w->state == Warp::State::Blocked ? int64_t(reinterpret_cast<intptr_t>(w->waiting.at)) : -1);
  }
  if (states_at_last_time_out_ == states) return false;
  bool timed_out = false;
  for (auto& cta : ctas_)
    for (auto& w : cta->warps)
      if (w->state == Warp::State::Blocked)
        if (auto* m = std::get_if<MbarrierPhaseWait>(&w->waiting.until); m && m->timed) {
          w->state = Warp::State::Ready;
          timed_out = true;
        }
  if (timed_out) states_at_last_time_out_ = std::move(states);
  return timed_out;
}

void run(const ir::KernelNode& k, const Launch& launch, const Options& options) {
  TESSEL_CHECK(k.shared_bytes >= 0, "kernel {} reached the simulator without a shared-memory plan", k.name);
  TESSEL_CHECK(launch.args.size() == k.params.size(), "kernel {}: {} arguments for {} parameters", k.name,
               launch.args.size(), k.params.size());
  for (int d = 0; d < 3; ++d)
    if (launch.grid[d] <= 0) return;  // an empty grid runs nothing, as on a GPU
  // A cluster's blocks run together: they may wait for each other.
  const std::array<int, 3>& g = k.clustered() ? k.cluster : options.blocks_per_group;
  for (int d = 0; d < 3; ++d)
    if (g[d] <= 0 || launch.grid[d] % g[d] != 0)
      throw Error(fmt::format("simulator: the grid ({}) of kernel {} does not divide into groups of ({}) blocks",
                              fmt::join(launch.grid, ", "), k.name, fmt::join(g, ", ")));
  LayoutTables tables;
  HappensBefore happens_before(options.check_races);
  // A kernel that waits for prior grids runs beside them until it waits; their record stays
  // theirs until this launch ends.
  PriorGridAccesses& prior = prior_grid_accesses();
  RunWarnings warnings;
  if (const std::optional<SourceLoc> wait = ir::first_grid_dependency_wait(k)) {
    happens_before.overlap_prior_grids(prior);
    if (options.check_races && !prior.unrecorded.empty())
      warnings.prior_grids_unchecked(*wait, k.name, prior.unrecorded);
  }
  std::deque<std::array<int, 3>> groups;
  for (int z = 0; z < launch.grid[2]; z += g[2])
    for (int y = 0; y < launch.grid[1]; y += g[1])
      for (int x = 0; x < launch.grid[0]; x += g[0]) groups.push_back({x, y, z});
  // A kernel that cancels launches needs blocks waiting in the launch queue: a few groups are
  // resident, the others start as resident ones end. Any other kernel runs group after group.
  const char* traced = std::getenv("TESSEL_TRACE");
  const std::string trace_file = !options.trace_file.empty() ? options.trace_file : traced ? traced : "";
  std::optional<Timeline> timeline;
  if (!trace_file.empty()) timeline.emplace(trace_file, k);
  const auto run_groups = [&](std::deque<std::array<int, 3>> queue, int resident) {
    Scheduler scheduler(k, launch, std::move(queue), g, resident, options, tables, happens_before, warnings);
    scheduler.timeline = timeline ? &*timeline : nullptr;
    scheduler.run();
  };
  const bool cancels = uses_cluster_launch_control(k);
  if (cancels && options.resident_clusters < 1)
    throw Error(fmt::format("simulator: resident_clusters is {}; at least one cluster must be resident",
                            options.resident_clusters));
  if (!cancels && options.resident_groups < 1)
    throw Error(
        fmt::format("simulator: resident_groups is {}; at least one group must be resident", options.resident_groups));
  // What fails from here on is the run's report; the trace shows how the run got to it.
  try {
    if (cancels) {
      run_groups(std::move(groups), options.resident_clusters);
    } else if (options.resident_groups > 1) {
      run_groups(std::move(groups), options.resident_groups);
    } else {
      for (const std::array<int, 3>& first : groups) run_groups({first}, 1);
    }
    if (timeline) {
      timeline->write();
      timeline.reset();  // written: a failing check below writes nothing more
    }
    check_zeroed_scratch(k, launch, options.multiprocessors);
    warnings.report(options);
    prior = happens_before.recorded_accesses(k.name);  // built from the old record, which it replaces
  } catch (const Error& report) {
    if (timeline) timeline->write();
    host_synchronized();
    throw RunReport(report);
  } catch (...) {
    if (timeline) timeline->write();
    host_synchronized();
    throw;
  }
}

}  // namespace tessel::sim
