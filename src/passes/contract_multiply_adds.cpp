// Contracts f32 `a * b + c`, `a * b - c` and `c - a * b` of register tiles, where the product is
// read nowhere else, into one fma, rounded once. nvcc contracts such pairs by its own choice; the
// generated code is compiled without contraction (--fmad=false, runtime/nvrtc_compiler.cpp), so
// the choice is made here, in the IR, and the simulator and the GPU round every operation alike.
// f16 and bf16 tiles need none of this: their +, - and * are packed instructions of inline PTX,
// which no compiler contracts.
#include <map>
#include <set>

#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// How many times each register tile is an operand of a statement (its definition among them,
// and a statement that reads it twice counting twice): a product named twice is read once, by one
// statement (never `p + p`).
std::map<const ir::RegisterTensorNode*, int> times_named(const ir::Stmt& body) {
  std::map<const ir::RegisterTensorNode*, int> count;
  ir::walk(body, [&](const ir::StmtNode& s) {
    for (const auto& t : ir::direct_operands(s).tensors)
      if (t->kind == ir::NodeKind::RegisterTensor) ++count[static_cast<const ir::RegisterTensorNode*>(t.get())];
  });
  return count;
}

const ir::ElementwiseBinaryNode* as_binary(const ir::Stmt& s, ir::BinaryOp op) {
  if (s->kind != ir::NodeKind::ElementwiseBinary) return nullptr;
  const auto* b = static_cast<const ir::ElementwiseBinaryNode*>(s.get());
  return b->op == op && b->out->dtype == DType::F32 && b->a.dtype() == DType::F32 && b->b.dtype() == DType::F32
             ? b
             : nullptr;
}

// The tile operations that only define a fresh tile from others: between a product and its sum
// they change nothing the product reads, so that which product of `x * y + x * z` contracts
// depends on the sum's operands alone, not on the order C++ traced them in.
bool defines_only_its_result(const ir::StmtNode& s) {
  switch (s.kind) {
    case ir::NodeKind::ElementwiseBinary:
    case ir::NodeKind::ElementwiseUnary:
    case ir::NodeKind::Where:
    case ir::NodeKind::Fma:
    case ir::NodeKind::CastTensor:
    case ir::NodeKind::BitcastTensor: return true;
    default: return false;
  }
}

// Whether statement `s`, run between a product and the sum that reads it, may change what the
// product reads: it nests statements, names one of the product's tiles (other than to read it in
// an operation that only defines its result: tiles are otherwise written only by copies into them
// and by instructions that update their operands), or writes one of the variables its scalars read.
bool may_change_operands(const ir::StmtNode& s, const ir::ElementwiseBinaryNode& product) {
  if (defines_only_its_result(s)) return false;
  const ir::DirectOperands direct = ir::direct_operands(s);
  if (!direct.children.empty()) return true;
  std::set<const ir::Node*> tiles;
  std::set<const ir::VarNode*> vars;
  for (const ir::Operand* o : {&product.a, &product.b}) {
    if (o->tensor) tiles.insert(o->tensor.get());
    if (o->scalar)
      ir::walk_expr(*o->scalar, [&](const ir::ExprNode& e) {
        if (e.kind == ir::NodeKind::Var) vars.insert(static_cast<const ir::VarNode*>(&e));
      });
  }
  for (const auto& t : direct.tensors)
    if (tiles.count(t.get())) return true;
  if (s.kind == ir::NodeKind::Assign && vars.count(static_cast<const ir::AssignNode&>(s).var.get())) return true;
  for (const ir::Var& v : ir::instruction_results(s))
    if (vars.count(v.get())) return true;
  return false;
}

// -x, for an operand: a negated scalar, or a tile negated by a statement appended to `out`.
ir::Operand negated(const ir::Operand& x, const SourceLoc& loc, std::vector<ir::Stmt>& out) {
  if (x.scalar) return {nullptr, ir::unary(ir::UnaryOp::Neg, x.scalar, loc)};
  const ir::RegisterTensor& t = x.tensor;
  auto negative = ir::make<ir::RegisterTensorNode>(t->dtype, t->shape(), t->threads, t->layout, t->name, loc);
  out.push_back(ir::make<ir::ElementwiseUnaryNode>(loc, negative, ir::UnaryOp::Neg, t));
  return {negative, nullptr};
}

class MultiplyAddContraction : public ir::Mutator {
 public:
  explicit MultiplyAddContraction(std::map<const ir::RegisterTensorNode*, int> named) : named_(std::move(named)) {}

 protected:
  ir::Stmt visit(const ir::SeqNode& n, const ir::Stmt& self) override {
    const ir::Stmt visited = rebuilt(n, self);
    std::vector<ir::Stmt> out;
    bool changed = false;
    for (const ir::Stmt& s : static_cast<const ir::SeqNode&>(*visited).stmts) {
      const bool contracted = contract(s, out);
      changed |= contracted;
      if (!contracted) out.push_back(s);
    }
    return changed ? ir::make<ir::SeqNode>(n.loc, std::move(out)) : visited;
  }

 private:
  // If `s` is a sum or difference of a product that `out` (the statements before it in its
  // sequence) computes for it alone, with nothing between that may change the product's
  // operands: replaces the product in `out` by the fma (after any negation it needs).
  bool contract(const ir::Stmt& s, std::vector<ir::Stmt>& out) {
    const auto* sum = as_binary(s, ir::BinaryOp::Add);
    if (!sum) sum = as_binary(s, ir::BinaryOp::Sub);
    if (!sum) return false;
    for (const bool product_first : {true, false}) {
      const ir::Operand& side = product_first ? sum->a : sum->b;
      const ir::Operand& other = product_first ? sum->b : sum->a;
      if (!side.tensor) continue;
      const auto times = named_.find(side.tensor.get());
      if (times == named_.end() || times->second != 2) continue;
      for (size_t j = out.size(); j-- > 0;) {
        const auto* product = as_binary(out[j], ir::BinaryOp::Mul);
        if (!product || product->out != side.tensor) continue;
        if (product->out->layout != sum->out->layout || product->out->shape() != sum->out->shape()) break;
        bool unchanged = true;
        for (size_t k = j + 1; k < out.size() && unchanged; ++k) unchanged = !may_change_operands(*out[k], *product);
        if (!unchanged) break;
        ir::Operand a = product->a, c = other;
        std::vector<ir::Stmt> negations;
        ir::Operand b = product->b;
        if (sum->op == ir::BinaryOp::Sub) {
          if (product_first)
            c = negated(other, sum->loc, negations);  // a * b - c = fma(a, b, -c)
          else if (b.scalar)
            b = negated(b, sum->loc, negations);  // c - a * s = fma(a, -s, c)
          else
            a = negated(a, sum->loc, negations);  // c - a * b = fma(-a, b, c)
        }
        out.erase(out.begin() + std::ptrdiff_t(j));
        out.insert(out.end(), negations.begin(), negations.end());
        out.push_back(ir::make<ir::FmaNode>(sum->loc, sum->out, a, b, c));
        return true;
      }
    }
    return false;
  }

  std::map<const ir::RegisterTensorNode*, int> named_;
};

}  // namespace

ir::Kernel contract_multiply_adds(const ir::Kernel& k, const PassContext&) {
  return MultiplyAddContraction(times_named(k->body)).mutate_kernel(k);
}

}  // namespace tessel::passes
