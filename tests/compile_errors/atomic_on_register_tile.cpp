// An atomic on a register tile is refused: a register tile is private to its threads.
// error: atomics act on memory that threads share: a global view \(global_view\) or a shared tile \(shared_tensor\)
#include "tessel/tessel.hpp"

struct AtomicOnARegisterTile : tessel::Script {
  void operator()(tessel::Ptr<float> x) {
    auto t = load_global(global_view(x, {64}), {0}, {64});
    atomic.add(t, t, {0});
  }
};
