// Bit operations on a float kernel value are refused, pointing at bitcast.
// error: bit operations \(& \| \^ << >> ~\) need integer kernel values; reinterpret a float's bits with bitcast
#include "tessel/tessel.hpp"

struct FloatBits : tessel::Script {
  void operator()(tessel::Float32 x) { tessel::Float32 y = x & 1; }
};
