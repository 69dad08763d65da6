// Helpers of the pass tests in this folder: a traced kernel lowered by the passes that precede one
// pass in the pipeline, so that a test runs that pass alone on what it gets there.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/ir/verifier.hpp"
#include "tessel/passes/pipeline.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {

// `k` verified, then run through every pass before `pass` (which must be in the pipeline).
inline ir::Kernel lowered_before(ir::Kernel k, std::string_view pass, ir::Arch arch = ir::Arch::Sm90a) {
  ir::verify(*k, arch);
  for (const passes::Pass& p : passes::pipeline()) {
    if (p.name == pass) return k;
    k = p.run(k, passes::PassContext{arch});
  }
  ADD_FAILURE() << "no pass " << pass << " in the pipeline";
  return k;
}

}  // namespace tessel::testing
