#include "tessel/lang/builder.hpp"

#include "tessel/lang/script.hpp"

namespace tessel {

namespace {
thread_local Builder* current_builder = nullptr;
}

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

void Builder::emit(ir::Stmt s) { scopes_.back().push_back(std::move(s)); }

void Builder::open_scope() { scopes_.emplace_back(); }

ir::Stmt Builder::close_scope(const SourceLoc& loc) {
  TESSEL_CHECK(!scopes_.empty(), "scope underflow");
  auto stmts = std::move(scopes_.back());
  scopes_.pop_back();
  return ir::seq(std::move(stmts), loc);
}

ir::ThreadRange Builder::group(const SourceLoc& loc) const {
  if (attrs_->warps <= 0 || attrs_->warps > 32)
    throw Error(loc, fmt::format("attrs.warps is {}; set it to a value in 1..32 before creating register tensors "
                                 "or thread groups",
                                 attrs_->warps));
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
