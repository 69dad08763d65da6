// A C++ `if` on a register tile is refused with a message that names where and if_.
// error: a register tile cannot steer C\+\+ control flow
#include "tessel/tessel.hpp"

struct BranchesOnATile : tessel::Script {
  void operator()(tessel::Ptr<float> x) {
    auto t = load_global(global_view(x, {32}), {0}, {32});
    if (t > 0.0f) attrs.warps = 1;
  }
};
