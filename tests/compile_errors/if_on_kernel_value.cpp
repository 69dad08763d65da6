// A C++ `if` on a kernel value is refused with a message that names if_.
// error: a kernel value cannot steer C\+\+ control flow
#include "tessel/tessel.hpp"

struct Branches : tessel::Script {
  void operator()(tessel::Int32 n) {
    if (n > 3) attrs.warps = 1;
  }
};
