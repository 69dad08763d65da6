// The trace builder: while a kernel body runs on the host, every DSL call appends IR to the
// innermost open scope of the thread-local current builder.
#pragma once

#include <optional>
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
  std::optional<Error> deferred_;
  Builder* previous_;
};

}  // namespace tessel
