// Verifier rules and effects (tessel/ir/effects.hpp) of cluster launch control: responses are
// 16-byte shared tiles, and the barrier names an element of a barrier array.
#include "verification.hpp"

namespace tessel::ir {

namespace {

void check_response(const SharedTensorNode& response, std::string_view what, const StmtNode& s) {
  if (response.nbytes() != kClcResponseBytes)
    throw Error(s.loc, fmt::format("{}: the response tile {} has {} bytes; a response takes a {}-byte shared tile, "
                                   "such as shared_tensor<uint32_t>({{4}})",
                                   what, response.name, response.nbytes(), kClcResponseBytes));
}

}  // namespace

void verify_ClcTryCancel(Verification&, const ClcTryCancelNode& n) {
  check_response(*n.response, "clc.try_cancel", n);
  check_barrier(n.barrier, n);
}

void verify_ClcQuery(Verification&, const ClcQueryNode& n) {
  check_response(*n.response, "clc.query_response", n);
  const Type i32{DType::I32};
  TESSEL_CHECK(n.canceled->type == Type{DType::Bool} && n.x->type == i32 && n.y->type == i32 && n.z->type == i32,
               "clc.query_response at {} writes variables of other types", n.loc.str());
}

// ---- effects ----

Effects effects_of(const ClcQueryNode&) { return {}; }

// A response is 16 bytes (PTX ISA 9.7.20.1).
Effects effects_of(const ClcTryCancelNode& n) {
  Effects e;
  e.completed_bytes.push_back({&n.barrier, 16, n.multicast});
  return e;
}

}  // namespace tessel::ir
