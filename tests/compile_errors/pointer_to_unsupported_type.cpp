// A pointer to a C++ type without an element type lists the element types there are.
// error: tessel has no element type for this C\+\+ type; the element types are bool, int8_t, uint8_t
#include "tessel/tessel.hpp"

struct LongDoublePointer : tessel::Script {
  void operator()(tessel::Ptr<long double> x) { global_view(x, {16}); }
};
