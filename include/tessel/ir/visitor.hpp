// The one read-only traversal of a kernel body. Analyses, the verifier and the code generator
// derive from Visitor and override the kinds they care about; the traversal keeps, for every
// statement, where it runs (Position): its thread group, the loops and if_ bodies around it, and
// the values in scope. The mutator keeps the same Position, so no pass tracks thread groups itself.
#pragma once

#include <set>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

// Where a statement sits in the kernel body.
class Position {
 public:
  // The thread group the statement runs in: the whole block at the top level.
  ThreadRange group() const;
  // The loops (range, while_) around it.
  int loops() const { return loops_; }
  // Whether an if_ inside its thread group encloses it, so that some of the group may skip it.
  bool branched() const { return !branches_.empty() && branches_.back() > 0; }
  // Whether a loop or an if_ encloses it (at any thread-group level).
  bool nested() const { return loops_ > 0 || nesting_branches_ > 0; }
  // Whether `value` (a variable, tile or shared tensor) was defined in an enclosing body: the
  // kernel's parameters, Declare and loop variables are defined by the traversal; what an
  // instruction creates is defined by whoever understands it (the verifier's rules).
  bool defined(const void* value) const;
  // Whether `value` was defined in the innermost body around the statement.
  bool defined_here(const void* value) const;
  void define(const void* value);

  void enter_block(int threads);
  void enter_group(ThreadRange g);
  void leave_group();
  void enter_loop();
  void leave_loop();
  void enter_branch();
  void leave_branch();

 private:
  std::vector<ThreadRange> groups_;
  std::vector<int> branches_ = {0};  // if_ bodies open at each thread-group level
  int nesting_branches_ = 0;
  int loops_ = 0;
  std::vector<std::set<const void*>> scopes_ = {{}};
};

class Visitor {
 public:
  virtual ~Visitor() = default;
  // Visits the body of `k`, whose block is the outermost thread group and whose parameters are
  // in scope.
  void visit_kernel(const KernelNode& k);
  // Visits one statement where the traversal stands.
  void visit_stmt(const Stmt& s);

 protected:
  const Position& position() const { return position_; }
  Position& position() { return position_; }

  // Every statement kind has a visit; control flow's default visits the bodies with the position
  // updated, an instruction's calls visit_instruction.
// clang-format off
#define TESSEL_STMT(Name) virtual void visit(const Name##Node& n);
#define TESSEL_INSTR(Name, family, min_target, executor, call) virtual void visit(const Name##Node& n);
#include "tessel/ir/nodes.def"
  // clang-format on
  virtual void visit_instruction(const StmtNode&) {}

  // The bodies of control flow, visited with the position a visit override needs when it writes
  // something between them (the code generator's `else`).
  void visit_loop_body(const Stmt& body, const Var& loop_var = nullptr);
  void visit_branch(const Stmt& body);
  void visit_group(const ThreadGroupNode& n);

 private:
  Position position_;
};

}  // namespace tessel::ir
