// A kernel called with fewer arguments than its operator() takes is refused at compile time.
// error: a kernel is called with one argument for each parameter of its script's operator\(\)
#include "tessel/tessel.hpp"

struct TakesTwo : tessel::Script {
  void operator()(tessel::Int32 n, tessel::Ptr<float> x) { attrs.blocks = 1; }
};

void call_with_one() { tessel::Kernel<TakesTwo>(tessel::Device::simulator())(16); }
