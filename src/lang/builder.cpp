#include "tessel/lang/builder.hpp"

#include "tessel/ir/mutator.hpp"
#include "tessel/lang/script.hpp"

namespace tessel {

namespace {
thread_local Builder* current_builder = nullptr;

// The element type and display name of a tensor operand.
std::pair<DType, std::string> element_of(const ir::Node& tensor) {
  switch (tensor.kind) {
    case ir::NodeKind::GlobalTensor: return {static_cast<const ir::GlobalTensorNode&>(tensor).dtype, "global view"};
    case ir::NodeKind::SharedTensor: {
      const auto& s = static_cast<const ir::SharedTensorNode&>(tensor);
      return {s.dtype, "the shared tensor allocated at " + s.allocation()->loc.str()};
    }
    case ir::NodeKind::RegisterTensor: {
      const auto& r = static_cast<const ir::RegisterTensorNode&>(tensor);
      return {r.dtype, "the register tile created at " + r.loc.str()};
    }
    case ir::NodeKind::TMemoryTensor: {
      const auto& t = static_cast<const ir::TMemoryTensorNode&>(tensor);
      return {t.dtype, "the tensor-memory tile allocated at " + t.loc.str()};
    }
    default: return {DType::I32, ""};
  }
}

// Packed tiles reach only the instructions that move and convert them (ir::takes_packed_tiles), tf32
// tiles those and the tensor cores (ir::takes_tf32_tiles), and e8m0 tiles the ones that move and
// convert whole bytes (ir::takes_e8m0_tiles).
void check_operand_only_tiles(const ir::StmtNode& s) {
  if (!ir::is_instruction(s.kind)) return;
  // Backwards: a statement names its results before its operands, and the message names an operand.
  const std::vector<ir::Ref<ir::Node>> tensors = ir::direct_operands(s).tensors;
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
    const auto [dtype, name] = element_of(**it);
    if (is_packed(dtype) && !ir::takes_packed_tiles(s.kind))
      throw Error(s.loc, fmt::format("{} does not take packed {} elements ({}); packed tiles are loaded, stored, "
                                     "copied, bitcast and converted: convert it with .to<T>() first (to i8, i32 or "
                                     "f16, for instance)",
                                     ir::call_name(s.kind), dtype_name(dtype), name));
    if (dtype == DType::E8M0 && !ir::takes_e8m0_tiles(s.kind))
      throw Error(
          s.loc,
          fmt::format("{} does not take e8m0 elements ({}); e8m0 tiles are scales, which are loaded, "
                      "stored, copied, shuffled, sliced, reshaped, bitcast and converted: convert it with .to<float>() "
                      "first (exact: every e8m0 value is a power of two that f32 holds)",
                      ir::call_name(s.kind), name));
    if (dtype == DType::TF32 && !ir::takes_tf32_tiles(s.kind))
      throw Error(s.loc, fmt::format("{} does not take tf32 elements ({}); tf32 tiles are loaded, stored, copied, "
                                     "sliced, reshaped, bitcast, converted and multiplied by the tensor cores: "
                                     "convert it with .to<float>() first",
                                     ir::call_name(s.kind), name));
  }
}

}  // namespace

Builder::Builder(Attrs* attrs) : attrs_(attrs), previous_(current_builder) {
  current_builder = this;
  open_scope();
}

Builder::~Builder() { current_builder = previous_; }

Builder& Builder::current(const SourceLoc& loc) {
  if (!current_builder)
    throw Error(loc,
                "kernel operation used outside a kernel body; tessel operations are valid only while "
                "a kernel's operator() is being traced (call the kernel through tessel::Kernel)");
  return *current_builder;
}

bool Builder::active() { return current_builder != nullptr; }

void Builder::emit(ir::Stmt s) {
  check_operand_only_tiles(*s);
  scopes_.back().push_back(std::move(s));
}

void Builder::open_scope() { scopes_.emplace_back(); }

ir::Stmt Builder::close_scope(const SourceLoc& loc) {
  TESSEL_CHECK(!scopes_.empty(), "scope underflow");
  auto stmts = std::move(scopes_.back());
  scopes_.pop_back();
  return ir::seq(std::move(stmts), loc);
}

ir::ThreadRange Builder::group(const SourceLoc& loc) const {
  const int warps = attrs_->warps;
  if (warps <= 0 || warps > 32)
    throw Error(attrs_->warps.loc().known() ? attrs_->warps.loc() : loc,
                fmt::format("attrs.warps is {}; set it to a value in 1..32 before creating register tensors or "
                            "thread groups",
                            warps));
  if (!groups_.empty()) return groups_.back();
  return ir::ThreadRange{0, attrs_->warps * 32};
}

void Builder::defer_error(Error e) {
  if (!deferred_) deferred_ = std::move(e);
}

void Builder::throw_deferred() {
  if (deferred_) {
    Error e = std::move(*deferred_);
    deferred_.reset();
    throw e;
  }
}

}  // namespace tessel
