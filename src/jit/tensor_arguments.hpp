// The launch's checks of the tensors a call passes (tessel::Tensor, Buffer): each must be on the
// kernel's device, and every global view the kernel builds over its parameter must stay inside it.
// Raw pointers carry no extent and are not checked.
#pragma once

#include <span>
#include <vector>

#include "tessel/ir/evaluate.hpp"
#include "tessel/jit/arguments.hpp"

namespace tessel::detail {

// A global view over one of the call's pointer parameters, with a shape and strides the host can
// evaluate at launch from the parameters' values.
struct ViewOfParameter {
  ir::GlobalTensor view;  // with the variables its sizes read replaced by their definitions
  size_t param;           // its index in KernelNode::params
  size_t argument;        // the call's argument that gives the parameter
};

// The views of lowered kernel `k` that a launch can check: their sizes read parameters, and
// variables declared once from them. Views whose extent depends on values computed inside the
// kernel (block indices, loop variables) are left to the simulator's checks of every access.
std::vector<ViewOfParameter> views_of_parameters(const ir::KernelNode& k, const KernelSignature& signature);

// Throws tessel::Error naming the kernel and the parameter when a tensor is on another device
// than the kernel, or when one of `views` spans more of a tensor than it holds (with both extents).
// `values` holds every parameter's value, derived ones included. Allocates nothing unless it throws.
void check_tensor_arguments(const ir::KernelNode& k, const KernelSignature& signature,
                            std::span<const ViewOfParameter> views, std::span<const HostArg> args,
                            std::span<const ir::Scalar> values, int multiprocessors, bool on_gpu);

}  // namespace tessel::detail
