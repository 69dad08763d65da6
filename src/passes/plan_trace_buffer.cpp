// Gives the timeline marks of a kernel one buffer: a derived parameter (KernelNode::
// derived_params) that the launch fills with a buffer when it records a timeline, and with null
// when it does not, so that a kernel with marks is compiled once for both.
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class PlanTraceBuffer : public ir::Mutator {
 public:
  explicit PlanTraceBuffer(ir::KernelNode& k) : kernel_(k) {}

 protected:
  ir::Stmt visit(const ir::TraceMarkNode& n, const ir::Stmt& self) override {
    if (n.buffer) return self;
    if (!param_) {
      param_ = ir::make_var(ir::Type{DType::U64, true}, "trace_buffer", n.loc);
      kernel_.params.push_back(param_);
      kernel_.derived_params.push_back({param_, ir::DerivedValue::TraceBuffer, nullptr, n.loc});
    }
    auto planned = ir::copy_of(n);
    planned->buffer = param_;
    return planned;
  }

 private:
  ir::KernelNode& kernel_;
  ir::Var param_;
};

}  // namespace

ir::Kernel plan_trace_buffer(const ir::Kernel& k, const PassContext&) {
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = PlanTraceBuffer(*out).mutate(k->body);
  return out->body == k->body ? k : out;
}

}  // namespace tessel::passes
