// Turns the body's uses of `multiprocessors` into one derived parameter (KernelNode::
// derived_params) that the launch fills with the device's SM count: the generated code has no
// reliable way to read it (%nsmid may exceed the SMs a launch can use). attrs.blocks keeps the
// built-in, which the host evaluates directly.
#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

class PlanMultiprocessors : public ir::Mutator {
 public:
  explicit PlanMultiprocessors(ir::KernelNode& k) : kernel_(k) {}

 protected:
  ir::Expr visit(const ir::BuiltinNode& n, const ir::Expr& self) override {
    if (n.which != ir::BuiltinKind::Multiprocessors) return self;
    if (!param_) {
      param_ = ir::make_var(n.type, "multiprocessors", n.loc);
      kernel_.params.push_back(param_);
      kernel_.derived_params.push_back({param_, ir::DerivedValue::Multiprocessors, nullptr, n.loc});
    }
    return param_;
  }

 private:
  ir::KernelNode& kernel_;
  ir::Var param_;
};

}  // namespace

ir::Kernel plan_multiprocessors(const ir::Kernel& k, const PassContext&) {
  auto out = std::make_shared<ir::KernelNode>(*k);
  out->body = PlanMultiprocessors(*out).mutate(k->body);
  return out->body == k->body ? k : out;
}

}  // namespace tessel::passes
