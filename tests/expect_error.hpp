// Runs a kernel on the simulator and returns the message of the tessel::Error it raises.
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

}  // namespace tessel::testing
