// require() of a C++ bool (a condition on hyperparameters) is refused with a message that says
// where such a condition is checked.
// error: a condition on C\+\+ values \(hyperparameters, int members\) is known while tracing
#include "tessel/tessel.hpp"

struct Requires : tessel::Script {
  int k = 256;
  void operator()(tessel::Int32 n) { require(k % 128 == 0, "k must be a multiple of 128"); }
};
