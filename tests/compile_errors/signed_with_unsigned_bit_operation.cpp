// & | ^ of a signed and an unsigned kernel integer are refused, as on tiles; a shift is not.
// error: & \| \^ of a signed and an unsigned kernel integer: convert one with cast<T>\(\)
#include "tessel/tessel.hpp"

struct MixedSignednessBits : tessel::Script {
  void operator()(tessel::Int32 i, tessel::UInt32 u) {
    auto shifted = u << i;
    auto masked = i & u;
  }
};
