// The layout rule of each instruction, read off the traced IR for infer_layouts.
#include "layout_constraints.hpp"

#include <map>

#include "tessel/ir/mutator.hpp"

namespace tessel::passes {

std::string Requirement::describe() const {
  return instruction.empty() ? how : fmt::format("{} {} at {}", how, instruction, loc.str());
}

namespace {

class Collector {
 public:
  LayoutConstraints run(const ir::KernelNode& k) {
    ir::walk(k.body, [&](const ir::StmtNode& s) { stmt(s); });
    return std::move(c_);
  }

 private:
  int index(const ir::RegisterTensor& t) {
    auto [it, fresh] = index_.try_emplace(t.get(), int(c_.tiles.size()));
    if (fresh) c_.tiles.push_back({t, "an instruction", t->loc});
    return it->second;
  }

  // The tile `t` is created by the instruction the user wrote as `created_by`; a layout it carries is a pin.
  int define(const ir::RegisterTensor& t, std::string created_by) {
    const int i = index(t);
    c_.tiles[i].created_by = created_by;
    if (t->has_layout()) c_.pins.push_back({t->layout, i, "is pinned by the layout argument of", created_by, t->loc});
    return i;
  }

  // An operand of an elementwise result `out`: the same layout when it has the full shape,
  // a broadcast otherwise.
  void operand(const ir::Operand& o, int out, std::string_view op, const SourceLoc& loc) {
    if (!o.tensor) return;
    const int i = index(o.tensor);
    const auto &have = o.tensor->shape(), &want = c_.tiles[out].tile->shape();
    std::vector<int> dims;
    for (size_t d = 0; d < want.size(); ++d)
      if (have[d] != want[d]) dims.push_back(int(d));
    if (dims.empty()) c_.same_layout.emplace_back(i, out);
    else c_.broadcasts.push_back({i, out, dims, std::string(op), loc});
  }

  void stmt(const ir::StmtNode& s) {
    using K = ir::NodeKind;
    switch (s.kind) {
      case K::AllocRegister: define(static_cast<const ir::AllocRegisterNode&>(s).out, "register_tensor"); break;
      case K::LoadGlobal: define(static_cast<const ir::LoadGlobalNode&>(s).out, "load_global"); break;
      case K::LoadShared: define(static_cast<const ir::LoadSharedNode&>(s).out, "load_shared"); break;
      case K::ElementwiseBinary: {
        auto& n = static_cast<const ir::ElementwiseBinaryNode&>(s);
        const std::string op(ir::op_name(n.op));
        const int out = define(n.out, op);
        operand(n.a, out, op, s.loc);
        operand(n.b, out, op, s.loc);
        break;
      }
      case K::ElementwiseUnary: {
        auto& n = static_cast<const ir::ElementwiseUnaryNode&>(s);
        c_.same_layout.emplace_back(index(n.a), define(n.out, std::string(ir::op_name(n.op))));
        break;
      }
      case K::Where: {
        auto& n = static_cast<const ir::WhereNode&>(s);
        const int out = define(n.out, "where");
        for (const ir::Operand* o : {&n.cond, &n.a, &n.b}) operand(*o, out, "where", s.loc);
        break;
      }
      case K::Fma: {
        auto& n = static_cast<const ir::FmaNode&>(s);
        const int out = define(n.out, "fma");
        c_.same_layout.emplace_back(index(n.c), out);
        operand(n.a, out, "fma", s.loc);
        operand(n.b, out, "fma", s.loc);
        break;
      }
      case K::Dot: {
        auto& n = static_cast<const ir::DotNode&>(s);
        const int a = index(n.a), b = index(n.b), c = index(n.c), out = define(n.out, "dot");
        c_.dots.push_back({&n, a, b, c, out, n.c->shape()[0], n.c->shape()[1], n.a->shape()[1], n.out->threads / 32,
                           n.a->dtype, s.loc});
        break;
      }
      case K::CastTensor: {
        auto& n = static_cast<const ir::CastTensorNode&>(s);
        c_.same_layout.emplace_back(index(n.a), define(n.out, "to<T>()"));
        break;
      }
      case K::Reduce: {
        auto& n = static_cast<const ir::ReduceNode&>(s);
        const std::string op(ir::op_name(n.op));
        c_.reductions.push_back({index(n.a), define(n.out, op), n.dim, op, s.loc});
        break;
      }
      case K::CopyRegister: {
        auto& n = static_cast<const ir::CopyRegisterNode&>(s);
        c_.same_layout.emplace_back(index(n.dst), index(n.src));
        break;
      }
      case K::AnnotateLayout: {
        auto& n = static_cast<const ir::AnnotateLayoutNode&>(s);
        c_.pins.push_back({n.layout, index(n.tile), "is pinned by", "annotate_layout", s.loc});
        c_.has_annotations = true;
        break;
      }
      case K::StoreGlobal: index(static_cast<const ir::StoreGlobalNode&>(s).src); break;
      case K::StoreShared: index(static_cast<const ir::StoreSharedNode&>(s).src); break;
      case K::PrintTensor: index(static_cast<const ir::PrintTensorNode&>(s).tensor); break;
      default: break;
    }
  }

  LayoutConstraints c_;
  std::map<const ir::RegisterTensorNode*, int> index_;
};

}  // namespace

LayoutConstraints collect_layout_constraints(const ir::KernelNode& k) { return Collector().run(k); }

}  // namespace tessel::passes
