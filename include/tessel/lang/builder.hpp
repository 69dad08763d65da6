// The trace builder: while a kernel body runs on the host, every DSL call appends IR to the
// innermost open scope of the thread-local current builder.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel {

struct Attrs;

class Builder {
 public:
  explicit Builder(Attrs* attrs);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // The builder of the trace in progress; a DSL call outside a kernel body is a user error.
  static Builder& current(const SourceLoc& loc);
  static bool active();

  void emit(ir::Stmt s);
  void open_scope();
  ir::Stmt close_scope(const SourceLoc& loc);
  size_t depth() const { return scopes_.size(); }
  // The traced loops (range, while_) whose bodies are being traced, for break_ and continue_.
  void enter_loop() {
    conditions_outside_loops_.push_back(in_condition_);
    in_condition_ = false;
  }
  void leave_loop() {
    in_condition_ = conditions_outside_loops_.back();
    conditions_outside_loops_.pop_back();
  }
  bool inside_loop() const { return !conditions_outside_loops_.empty() && !in_condition_; }
  // While a while_ condition is traced: its statements open each pass of the loop being built, so
  // a break_ or continue_ there (outside a loop of its own) would not belong to the loop around it.
  bool enter_condition() { return std::exchange(in_condition_, true); }
  void leave_condition(bool outer) { in_condition_ = outer; }
  bool inside_condition() const { return in_condition_; }

  // Thread groups: the threads a register tile is distributed over, and what an instruction
  // may assume about who runs it.
  void push_group(ir::ThreadRange g) { groups_.push_back(g); }
  void pop_group() { groups_.pop_back(); }
  ir::ThreadRange group(const SourceLoc& loc) const;  // the innermost group; needs attrs.warps
  bool inside_thread_group() const { return !groups_.empty(); }
  Attrs& attrs() { return *attrs_; }

  // The first mbarrier.alloc traced before attrs.cluster was set: it published its barriers to
  // the block only, which a kernel with clusters must not do (checked when the trace ends).
  std::optional<SourceLoc> mbarriers_allocated_without_cluster;

  // The setmaxnreg calls of the trace, checked against the block's registers when it ends.
  struct RegisterRequest {
    ir::ThreadRange group;
    bool increase;
    int registers;
    SourceLoc loc;
  };
  std::vector<RegisterRequest> register_requests;

  // The global scratch buffers of the trace (global_scratch), parameters the launch fills.
  std::vector<ir::DerivedParam> scratch_params;
  // The kernel's Script::require conditions, in the order written.
  std::vector<ir::Requirement> requirements;

  // A problem found where throwing is impossible (a destructor); reported when the trace ends.
  void defer_error(Error e);
  void throw_deferred();

 private:
  Attrs* attrs_;
  std::vector<std::vector<ir::Stmt>> scopes_;
  std::vector<ir::ThreadRange> groups_;
  std::vector<bool> conditions_outside_loops_;  // for each loop being traced, whether a condition was around it
  bool in_condition_ = false;
  std::optional<Error> deferred_;
  Builder* previous_;
};

}  // namespace tessel
