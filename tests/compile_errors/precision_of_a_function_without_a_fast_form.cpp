// A Precision given to a math function with a single form is refused with a message that lists
// the functions that have a fast form.
// error: rsqrt, erf and abs have a single form, so they take no Precision
#include "tessel/tessel.hpp"

struct FastErf : tessel::Script {
  void operator()(tessel::Ptr<float> x) {
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), erf(t, tessel::Precision::fast), {0});
  }
};
