// A deliberately broken kernel: sync() behind a run-time condition that only some warps meet, so
// the other warps never reach it. The language cannot see this (the condition is a kernel value);
// a GPU would hang, and the simulator reports the deadlock with the warps and the line.
#include "examples.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

struct BrokenSync : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 128);
    attrs.warps = 4;
    Int32 offset = blockIdx.x * 128;
    auto t = load_global(global_view(x, {n}), {offset}, {128});
    Int32 producer = 0;
    thread_group(0, 64, [&] { producer = 1; });  // each thread has its own copy: warps 0 and 1 set it
    if_(producer == 1, [&] {
      sync();  // only warps 0 and 1 get here
    });
    store_global(global_view(y, {n}), t * 2.0f, {offset});
  }
};

}  // namespace

KernelEntry broken_sync_example() {
  KernelEntry e;
  e.name = "broken_sync";
  e.description =
      "a deliberately broken kernel (sync() in a branch only some warps take): the simulator reports the deadlock";
  e.size_names = {"n"};
  e.default_sizes = {256};
  e.runner = [](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) -> RunResult {
    if (dev.is_gpu()) throw Error("broken_sync would hang a GPU; run it with --device sim to see the deadlock report");
    Buffer<float> x(dev, std::vector<float>(size_t(s[0]), 1.0f)), y(dev, std::vector<float>(size_t(s[0]), 0.0f));
    Kernel<BrokenSync> k(dev, opt);
    k(int(s[0]), x, y);
    return {false, 0, "broken_sync: ran without the expected deadlock report", k.stats()};
  };
  add_introspection<BrokenSync>(e, [](const std::vector<int64_t>& s) {
    float* p = nullptr;
    return std::make_tuple(int(s[0]), p, p);
  });
  return e;
}

}  // namespace tessel::examples
