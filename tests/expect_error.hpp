// The message of the tessel::Error that a kernel run on the simulator, or any call, raises.
#pragma once

#include <string>

#include "tessel/tessel.hpp"

namespace tessel::testing {

template <class S, class... A> std::string error_of(const A&... args) {
  try {
    Kernel<S> k(Device::simulator());
    k(args...);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The message of the tessel::Error that `call` raises, or "no error".
template <class Call> std::string error_of_call(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace tessel::testing
