// Traced control flow: range-for loops, if_/else_, while_, thread groups and sync; and the
// conditions every launch checks (require).
#include "tessel/lang/script.hpp"

namespace tessel {

Range::Range(Dim start, Dim stop, Dim step, int unroll, SourceLoc loc)
    : start_(std::move(start)), stop_(std::move(stop)), step_(std::move(step)), unroll_(unroll), loc_(std::move(loc)) {
  Builder::current(loc_);
  if (step_.is_constant() && step_.value() == 0) throw Error(loc_, "range: step must not be 0");
  if (unroll_ < 0) throw Error(loc_, fmt::format("range: unroll must be 0 (no hint) or positive, got {}", unroll_));
  var_ = ir::make_var(ir::Type{DType::I32}, "i", loc_);
}

Range::Iterator Range::begin() {
  TESSEL_CHECK(state_ == State::Fresh, "range iterated twice");
  Builder& b = Builder::current(loc_);
  uncaught_ = std::uncaught_exceptions();
  b.open_scope();
  b.enter_loop();
  depth_ = b.depth();
  state_ = State::InBody;
  return Iterator(this);
}

Var<int32_t> Range::Iterator::operator*() const { return Var<int32_t>::bind(r_->var_); }

Range::Iterator& Range::Iterator::operator++() {
  r_->state_ = State::BodyDone;
  return *this;
}

bool Range::Iterator::operator!=(const Iterator&) const {
  if (r_->state_ == State::InBody) return true;
  r_->finish();
  return false;
}

void Range::finish() {
  Builder& b = Builder::current(loc_);
  b.leave_loop();
  ir::Stmt body = b.close_scope(loc_);
  b.emit(ir::make<ir::ForNode>(loc_, var_, start_.ir(), stop_.ir(), step_.ir(), unroll_, body));
  state_ = State::Closed;
}

Range::~Range() {
  if (state_ != State::InBody || !Builder::active()) return;
  Builder& b = Builder::current(loc_);
  // The body scope is still open: the loop was left without finishing its iteration.
  b.leave_loop();
  while (b.depth() >= depth_) b.close_scope(loc_);
  if (std::uncaught_exceptions() > uncaught_) return;
  b.defer_error(Error(loc_,
                      "a C++ `break` (or `return`/`goto`) left a traced range loop; the loop body is traced "
                      "once, so this would silently cut the kernel's loop short. break_() leaves the kernel's "
                      "loop, and continue_() ends its pass"));
}

IfBuilder::~IfBuilder() {
  if (std::uncaught_exceptions() > uncaught_ || !Builder::active()) return;
  Builder::current(loc_).emit(ir::make<ir::IfNode>(loc_, cond_, then_, else_case_));
}

IfBuilder& IfBuilder::else_(const std::function<void()>& body) {
  Builder& b = Builder::current(loc_);
  b.open_scope();
  body();
  else_case_ = b.close_scope(loc_);
  return *this;
}

void Instructions::make_requirement(ir::Expr cond, std::string message, SourceLoc loc) {
  Builder::current(loc).requirements.push_back({std::move(cond), std::move(message), loc});
}

IfBuilder Instructions::make_if(ir::Expr cond, const std::function<void()>& then_body, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  b.open_scope();
  then_body();
  return IfBuilder(std::move(cond), b.close_scope(loc), loc);
}

void Instructions::make_while(const std::function<ir::Expr()>& cond, const std::function<void()>& body, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  b.open_scope();
  const bool outer_condition = b.enter_condition();
  ir::Expr c = cond();
  b.leave_condition(outer_condition);
  const ir::Stmt computed = b.close_scope(loc);
  b.open_scope();
  b.enter_loop();
  if (static_cast<const ir::SeqNode&>(*computed).stmts.empty()) {
    // An expression of variables, which the loop's test evaluates each time.
    body();
  } else {
    // The condition's tracing emitted statements (a try_wait, a load, a value held in a Var): they
    // open each pass, and a failed test leaves the loop, so that each test computes it afresh.
    for (const ir::Stmt& st : static_cast<const ir::SeqNode&>(*computed).stmts) b.emit(st);
    b.emit(ir::make<ir::IfNode>(loc, ir::unary(ir::UnaryOp::Not, c, loc), ir::seq({ir::make<ir::BreakNode>(loc)}, loc),
                                nullptr));
    body();
    c = ir::const_int(1, DType::Bool, loc);
  }
  b.leave_loop();
  b.emit(ir::make<ir::WhileNode>(loc, c, b.close_scope(loc)));
}

void Instructions::make_loop_exit(bool next_pass, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  const char* name = next_pass ? "continue_()" : "break_()";
  if (b.inside_condition())
    throw Error(loc, fmt::format("{} in a while_ condition: the condition is computed at the start of each pass of "
                                 "its loop, before the body; call {} in the body",
                                 name, name));
  if (!b.inside_loop())
    throw Error(loc, next_pass
                         ? "continue_() outside a traced loop: it ends the pass of the innermost range or while_ "
                           "loop around it"
                         : "break_() outside a traced loop: it leaves the innermost range or while_ loop around it");
  if (next_pass)
    b.emit(ir::make<ir::ContinueNode>(loc));
  else
    b.emit(ir::make<ir::BreakNode>(loc));
}

void Instructions::make_return(SourceLoc loc) {
  Builder& b = Builder::current(loc);
  if (b.inside_condition())
    throw Error(loc,
                "return_() in a while_ condition: the condition is computed at the start of each pass of its "
                "loop, before the body; call return_() in the body");
  b.emit(ir::make<ir::ReturnNode>(loc));
}

void Instructions::thread_group(int begin, int count, const std::function<void()>& body, loc_t loc) {
  SourceLoc l = SourceLoc::from(loc);
  Builder& b = Builder::current(l);
  const ir::ThreadRange outer = b.group(l);
  if (begin < 0 || count <= 0 || begin + count > outer.count)
    throw Error(l, fmt::format("thread_group(begin={}, count={}) does not fit in the enclosing group of {} threads",
                               begin, count, outer.count));
  const ir::ThreadRange g{outer.begin + begin, count};
  b.open_scope();
  b.push_group(g);
  try {
    body();
  } catch (...) {
    b.pop_group();
    throw;
  }
  b.pop_group();
  b.emit(ir::make<ir::ThreadGroupNode>(l, g.begin, g.count, b.close_scope(l)));
}

void Instructions::single_warp(const std::function<void()>& body, loc_t loc) { thread_group(0, 32, body, loc); }
Expr<int32_t> Instructions::thread_index(loc_t loc) {
  const SourceLoc l = SourceLoc::from(loc);
  const ir::Expr thread = ir::make<ir::BuiltinNode>(l, ir::BuiltinKind::ThreadIdxX);
  const int begin = Builder::current(l).group(l).begin;
  return Expr<int32_t>(begin == 0 ? thread : ir::binary(ir::BinaryOp::Sub, thread, ir::const_int(begin), l));
}

Expr<int32_t> Instructions::lane_index(loc_t loc) {
  const SourceLoc l = SourceLoc::from(loc);
  const ir::Expr thread = ir::make<ir::BuiltinNode>(l, ir::BuiltinKind::ThreadIdxX);
  return Expr<int32_t>(ir::binary(ir::BinaryOp::Mod, thread, ir::const_int(32), l));
}

void Instructions::single_thread(const std::function<void()>& body, loc_t loc) { thread_group(0, 1, body, loc); }
void Instructions::warp_group(int index, const std::function<void()>& body, loc_t loc) {
  thread_group(index * 128, 128, body, loc);
}

Attrs::Blocks& Attrs::Blocks::operator=(const Extents& e) {
  dims_.clear();
  for (const Dim& d : e.dims) dims_.push_back(d.ir());
  loc_ = SourceLoc::from(e.loc);
  return *this;
}

Script::Script()
    : blockIdx{Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::BlockIdxX)),
               Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::BlockIdxY)),
               Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::BlockIdxZ))},
      gridDim{Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::GridDimX)),
              Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::GridDimY)),
              Expr<int32_t>(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::GridDimZ))},
      multiprocessors(ir::make<ir::BuiltinNode>(SourceLoc{}, ir::BuiltinKind::Multiprocessors)) {}

Class::Class(std::string_view type, loc_t constructed_at)
    : type_(type), constructed_at_(SourceLoc::from(constructed_at)) {}

MemberOf Class::member(std::string_view name) const {
  if (type_.empty()) return MemberOf{};
  return MemberOf{fmt::format("{} of the {} constructed at {}", name, type_, constructed_at_.str())};
}

}  // namespace tessel
