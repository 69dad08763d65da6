// A comparison of a signed with an unsigned kernel integer is refused: C would compare as unsigned.
// error: comparing a signed with an unsigned kernel integer would compare them as unsigned \(as C does, so -1 > 0u\);
// convert one with cast<T>\(\)
#include "tessel/tessel.hpp"

struct MixedSignedness : tessel::Script {
  void operator()(tessel::Int32 i, tessel::UInt32 u) { auto b = i < u; }
};
