// Running a block: warps as fibers, the scheduler, the block barrier and deadlock reports.
#include <cstring>

#include "machine.hpp"

namespace tessel::sim {

namespace {

constexpr size_t kFiberStack = 512 * 1024;

// makecontext passes int arguments only: the warp pointer travels as two halves.
void fiber_entry(unsigned lo, unsigned hi) {
  Warp* w = reinterpret_cast<Warp*>(uintptr_t(lo) | uintptr_t(hi) << 32);
  try {
    const Mask all = 0xffffffffu;
    w->exec(w->cta.kernel.body, all);
    w->complete_copies(0);  // copies nobody waited for still land before the block ends
  } catch (...) {
    w->error = std::current_exception();
  }
  w->state = Warp::State::Done;
  swapcontext(&w->context, &w->cta.scheduler);
}

}  // namespace

Warp::Warp(Cta& c, int i) : cta(c), id(i) { groups.push_back({0, c.kernel.threads()}); }

void Warp::yield() { swapcontext(&context, &cta.scheduler); }

std::vector<ir::Scalar>& Warp::tile(const ir::RegisterTensorNode* t) {
  auto& v = tiles_[t];
  if (v.empty()) v.resize(size_t(32) * t->layout.local_size());
  return v;
}

Cta::Cta(const ir::KernelNode& k, const Launch& l, std::array<int, 3> b, const Options& options, LayoutTables& t)
    : kernel(k), launch(l), block(b), tables(t), rng_(options.seed), random_(options.seed != 0) {
  for (size_t i = 0; i < k.params.size(); ++i) params[k.params[i].get()] = l.args[i];
  smem.assign(size_t(k.shared_bytes), 0);
  written.assign(size_t(k.shared_bytes), 0);
  pending_copy.assign(size_t(k.shared_bytes), nullptr);
  for (int w = 0; w < k.warps; ++w) warps_.push_back(std::make_unique<Warp>(*this, w));
}

bool Cta::complete_early() { return random_ && rng_() % 2 == 0; }

void Cta::check_no_pending_copy(int64_t byte, int n, bool write, const SourceLoc& loc, int thread) const {
  for (int b = 0; b < n; ++b)
    if (const ir::CopyAsyncNode* c = pending_copy[size_t(byte + b)])
      throw Error(loc, fmt::format("{} of shared memory that a copy_async issued at {} may still be writing (thread {} "
                                   "of block {}); wait for the copy (copy_async_wait_group / copy_async_wait_all) and "
                                   "sync() first",
                                   write ? "write" : "read", c->loc.str(), thread, block_name()));
}

std::string Cta::block_name() const { return fmt::format("({}, {}, {})", block[0], block[1], block[2]); }

void Cta::arrive_at_barrier(Warp& w, Mask mask, const SourceLoc& loc) {
  barrier_arrived += popcount(mask);
  w.arrived_threads = popcount(mask);
  w.waiting_at = loc;
  if (barrier_arrived == kernel.threads()) {
    barrier_arrived = 0;
    for (auto& other : warps_)
      if (other->state == Warp::State::Blocked) other->state = Warp::State::Ready;
    return;
  }
  w.state = Warp::State::Blocked;
  w.yield();
}

void Cta::run() {
  for (auto& w : warps_) {
    w->stack.resize(kFiberStack);
    getcontext(&w->context);
    w->context.uc_stack.ss_sp = w->stack.data();
    w->context.uc_stack.ss_size = w->stack.size();
    w->context.uc_link = nullptr;
    const uintptr_t p = reinterpret_cast<uintptr_t>(w.get());
    makecontext(&w->context, reinterpret_cast<void (*)()>(fiber_entry), 2, unsigned(p & 0xffffffffu), unsigned(p >> 32));
  }
  size_t next = 0;
  for (;;) {
    std::vector<Warp*> ready;
    bool live = false;
    for (auto& w : warps_) {
      if (w->state == Warp::State::Ready) ready.push_back(w.get());
      live |= w->state != Warp::State::Done;
    }
    if (!live) return;
    if (ready.empty()) report_deadlock();
    Warp* w = random_ ? ready[rng_() % ready.size()] : ready[next++ % ready.size()];
    swapcontext(&scheduler, &w->context);
    if (w->error) std::rethrow_exception(w->error);
  }
}

void Cta::report_deadlock() {
  std::string lines;
  SourceLoc first;
  for (auto& w : warps_) {
    const std::string who = fmt::format("warp {} (threads {}..{})", w->id, w->id * 32, w->id * 32 + 31);
    if (w->state == Warp::State::Done) {
      lines += fmt::format("\n  {}: finished", who);
    } else {
      if (!first.known()) first = w->waiting_at;
      lines += fmt::format("\n  {}: waiting at sync() at {} ({} of its 32 threads arrived)", who, w->waiting_at.str(),
                           w->arrived_threads);
    }
  }
  throw Error(first, fmt::format("deadlock in block {} of kernel {}: every warp is blocked or finished and nothing "
                                 "can release the waiting ones{}\n  barrier of sync(): {} of {} threads arrived; a "
                                 "sync() must be reached by every thread of the block (is it inside a thread group "
                                 "or a branch that only some threads take?)",
                                 block_name(), kernel.name, lines, barrier_arrived, kernel.threads()));
}

void run(const ir::KernelNode& k, const Launch& launch, const Options& options) {
  TESSEL_CHECK(k.shared_bytes >= 0, "kernel {} reached the simulator without a shared-memory plan", k.name);
  TESSEL_CHECK(launch.args.size() == k.params.size(), "kernel {}: {} arguments for {} parameters", k.name,
               launch.args.size(), k.params.size());
  for (int d = 0; d < 3; ++d)
    if (launch.grid[d] <= 0) return;  // an empty grid runs nothing, as on a GPU
  LayoutTables tables;
  for (int z = 0; z < launch.grid[2]; ++z)
    for (int y = 0; y < launch.grid[1]; ++y)
      for (int x = 0; x < launch.grid[0]; ++x) {
        Cta cta(k, launch, {x, y, z}, options, tables);
        cta.run();
      }
}

}  // namespace tessel::sim
