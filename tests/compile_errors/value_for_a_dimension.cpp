// A float where a reduction takes its dimension is refused (C++ would convert it to the int), with
// a message that names maximum.
// error: the element-wise larger or smaller of a tile and a value is maximum\(tile, value\)
#include "tessel/tessel.hpp"

struct ClampsWithMax : tessel::Script {
  void operator()(tessel::Ptr<float> x) {
    auto t = load_global(global_view(x, {32}), {0}, {32});
    store_global(global_view(x, {32}), max(t, 1e-12f), {0});
  }
};
