// Simulator semantics of register-tile instructions. Arithmetic follows the generated code:
// f32 arithmetic rounded to the element type after every operation.
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "machine.hpp"
#include "memory_access.hpp"
#include "operand_reader.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

namespace {

template <class F> void for_each_slot(Warp& w, const ir::RegisterTensorNode* out, Mask mask, F&& f) {
  auto& values = w.tile(out);
  const int local = out->layout.local_size();
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1)
      for (int l = 0; l < local; ++l) values[size_t(lane) * local + l] = f(lane, l);
}

}  // namespace

void exec_AllocRegister(Warp& w, const ir::AllocRegisterNode& n, Mask mask) {
  const Lanes init = w.eval(n.init, mask);
  for_each_slot(w, n.out.get(), mask,
                [&](int lane, int) { return ir::convert(n.init->type.dtype, n.out->dtype, init[lane]); });
}

void exec_ElementwiseBinary(Warp& w, const ir::ElementwiseBinaryNode& n, Mask mask) {
  OperandReader a(w, n.a, n.out.get(), mask), b(w, n.b, n.out.get(), mask);
  const DType t = n.a.dtype();
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    try {
      return ir::apply_binary(n.op, t, ir::convert(a.dtype(), t, a(lane, l)), ir::convert(b.dtype(), t, b(lane, l)));
    } catch (const Error& e) {
      throw Error(n.loc, fmt::format("{} in thread {} of block {}", e.message(), w.thread(lane), w.cta.block_name()));
    }
  });
}

void exec_ElementwiseUnary(Warp& w, const ir::ElementwiseUnaryNode& n, Mask mask) {
  const ir::Operand op{n.a, nullptr};
  OperandReader a(w, op, n.out.get(), mask);
  // The fast exp and exp2 (ex2.approx.ftz) flush a subnormal result to zero.
  const bool flushes =
      n.precision == ir::MathPrecision::Fast && (n.op == ir::UnaryOp::Exp || n.op == ir::UnaryOp::Exp2);
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    ir::Scalar r = ir::apply_unary(n.op, n.a->dtype, a(lane, l));
    if (flushes && std::fabs(r.f) < std::numeric_limits<float>::min()) r.f = 0;
    return r;
  });
}

void exec_Where(Warp& w, const ir::WhereNode& n, Mask mask) {
  OperandReader c(w, n.cond, n.out.get(), mask), a(w, n.a, n.out.get(), mask), b(w, n.b, n.out.get(), mask);
  const DType t = n.out->dtype;
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    return c(lane, l).i ? ir::convert(a.dtype(), t, a(lane, l)) : ir::convert(b.dtype(), t, b(lane, l));
  });
}

namespace {

// v rounded to the nearest f16 or bf16 (ties to even), directly: through an f32 it would round
// twice. A finite f16 result of f16 operands' fma is exact in a double, so this is its one rounding.
double rounded_once(DType t, double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int mantissa = t == DType::F16 ? 10 : 7, least = t == DType::F16 ? -24 : -133;
  int exponent = 0;
  std::frexp(v, &exponent);  // |v| in [2^(exponent - 1), 2^exponent)
  const int quantum = std::max(exponent - 1 - mantissa, least);
  return std::ldexp(std::nearbyint(std::ldexp(v, -quantum)), quantum);
}

}  // namespace

void exec_Fma(Warp& w, const ir::FmaNode& n, Mask mask) {
  OperandReader a(w, n.a, n.out.get(), mask), b(w, n.b, n.out.get(), mask), c(w, n.c, n.out.get(), mask);
  const DType t = n.out->dtype;
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    const ir::Scalar x = ir::convert(a.dtype(), t, a(lane, l)), y = ir::convert(b.dtype(), t, b(lane, l));
    // Fused: one rounding, as fma, fmaf and fma.rn.f16x2 do.
    if (t == DType::F64) return ir::Scalar{.f = std::fma(x.f, y.f, ir::convert(c.dtype(), t, c(lane, l)).f)};
    if (t == DType::F16 || t == DType::BF16)
      return ir::normalize(t, ir::Scalar{.f = rounded_once(t, std::fma(x.f, y.f, c(lane, l).f))});
    if (is_float(t))
      return ir::normalize(t, ir::Scalar{.f = double(std::fma(float(x.f), float(y.f), float(c(lane, l).f)))});
    return ir::apply_binary(ir::BinaryOp::Add, t, ir::apply_binary(ir::BinaryOp::Mul, t, x, y), c(lane, l));
  });
}

void exec_CastTensor(Warp& w, const ir::CastTensorNode& n, Mask mask) {
  const ir::Operand op{n.a, nullptr};
  OperandReader a(w, op, n.out.get(), mask);
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    if (n.saturate) return ir::convert_saturated(n.a->dtype, n.out->dtype, a(lane, l));
    if (n.rounding) return ir::convert_to_e8m0(n.a->dtype, a(lane, l), *n.rounding == ir::Rounding::up);
    return ir::convert(n.a->dtype, n.out->dtype, a(lane, l));
  });
}

// Between widths, slot l of the narrower tile is bits [w * (l % r), ...) of slot l / r of the wider
// (r the ratio of the widths, w the narrower width), as in memory.
void exec_BitcastTensor(Warp& w, const ir::BitcastTensorNode& n, Mask mask) {
  const DType from = n.a->dtype, to = n.out->dtype;
  const int wa = dtype_bits(from), wo = dtype_bits(to);
  const auto& in = w.tile(n.a.get());
  const size_t in_local = size_t(n.a->layout.local_size());
  const auto bits_at = [&](int lane, int slot) { return ir::bits_of(from, in[size_t(lane) * in_local + slot]); };
  // Slot l of the result is bits [l * wo, (l + 1) * wo) of the stream of the thread's slots.
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    if (wa == wo) return ir::from_bits(to, bits_at(lane, l));
    uint64_t bits = 0;
    for (int b = 0; b < wo; ++b) {
      const int64_t at = int64_t(l) * wo + b;
      bits |= (bits_at(lane, int(at / wa)) >> (at % wa) & 1u) << b;
    }
    return ir::from_bits(to, bits);
  });
}

void exec_Iota(Warp& w, const ir::IotaNode& n, Mask mask) {
  const auto& table = w.cta.tables.coords(n.out.get());
  const int local = n.out->layout.local_size(), rank = n.out->layout.rank();
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    const size_t t = size_t(w.thread_in_group(lane));
    return ir::Scalar{.i = table[(t * local + l) * rank + n.dim]};
  });
}

void exec_TileElement(Warp& w, const ir::TileElementNode& n, Mask mask) {
  const std::vector<ir::Scalar>& values = w.tile(n.a.get());
  Lanes out;
  for (size_t lane = 0; lane < 32; ++lane) out[lane] = values[lane];
  w.assign(n.result.get(), out, mask);
}

void exec_CopyRegister(Warp& w, const ir::CopyRegisterNode& n, Mask mask) {
  const ir::Operand op{n.src, nullptr};
  OperandReader a(w, op, n.dst.get(), mask);
  for_each_slot(w, n.dst.get(), mask, [&](int lane, int l) { return a(lane, l); });
}

void exec_SliceRegister(Warp& w, const ir::SliceRegisterNode& n, Mask mask) {
  const std::vector<int>& registers = w.cta.tables.slice(n);
  const auto& in = w.tile(n.src.get());
  const size_t in_local = size_t(n.src->layout.local_size());
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) { return in[size_t(lane) * in_local + registers[l]]; });
}

void exec_RegroupRegisters(Warp& w, const ir::RegroupRegistersNode& n, Mask mask) {
  const auto& registers = w.cta.tables.regroup(n);
  const std::vector<ir::Scalar>* in[2] = {&w.tile(n.a.get()), n.b ? &w.tile(n.b.get()) : nullptr};
  const size_t in_local = size_t(n.a->layout.local_size());
  for_each_slot(w, n.out.get(), mask, [&](int lane, int l) {
    const auto [which, slot] = registers[size_t(l)];
    return (*in[which])[size_t(lane) * in_local + size_t(slot)];
  });
}

// Layout annotations are consumed by infer_layouts; lowered IR has none.
void exec_AnnotateLayout(Warp&, const ir::AnnotateLayoutNode& n, Mask) {
  TESSEL_CHECK(false, "annotate_layout at {} reached the simulator", n.loc.str());
}

namespace {

// A printed value as the generated code's printf writes it (%.17g, %g, %lld, %llu, %d).
std::string printed(DType t, ir::Scalar v) {
  char text[64];
  if (t == DType::F64)
    std::snprintf(text, sizeof text, "%.17g", v.f);
  else if (is_float(t))
    std::snprintf(text, sizeof text, "%g", double(float(v.f)));
  else if (t == DType::Bool)
    std::snprintf(text, sizeof text, "%d", int(v.i != 0));
  else if (is_signed(t))
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v.i));
  else
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(v.i));
  return text;
}

bool in_block(const Warp& w, const std::array<int, 3>& block) { return w.cta.block == block; }

}  // namespace

// The rows of a printed tile of `shape` as the generated code prints them: each row's
// coordinates, then its elements, `element` giving the one at coordinates c.
std::string printed_rows(const std::vector<int>& shape, DType t,
                         const std::function<ir::Scalar(const std::vector<int>&)>& element) {
  const int rank = int(shape.size());
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= shape[size_t(d)];
  std::string text;
  std::vector<int> c(size_t(rank), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r;
    for (int d = rank - 2; d >= 0; --d) {
      c[size_t(d)] = int(rest % shape[size_t(d)]);
      rest /= shape[size_t(d)];
    }
    text += rank == 1 ? " " : fmt::format("  [{}]", fmt::join(c.begin(), c.end() - 1, ", "));
    for (int k = 0; k < shape.back(); ++k) {
      c.back() = k;
      text += " " + printed(t, element(c));
    }
    text += "\n";
  }
  return text;
}

// As the generated code: the group's threads store their elements (the first replica of each) to
// the scratch, a barrier, the group's first thread prints it row by row, a second barrier.
void exec_PrintTensor(Warp& w, const ir::PrintTensorNode& n, Mask mask) {
  TESSEL_CHECK(n.scratch, "print at {} reached the simulator unplanned", n.loc.str());
  if (!in_block(w, n.block)) return;
  const Layout& layout = n.tensor->layout;
  const DType t = n.scratch->dtype;
  const int bytes = dtype_bytes(t), local = layout.local_size(), rank = layout.rank();
  const std::vector<int>& shape = layout.shape();
  const int64_t base = w.cta.shared_offsets.at(n.scratch.get());
  const auto& table = w.cta.tables.coords(n.tensor.get());
  const auto& values = w.tile(n.tensor.get());
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (!(mask >> lane & 1) || !first_replica(layout, th)) continue;
    for (int l = 0; l < local; ++l) {
      const int64_t byte = base + row_major_position(table, shape, local, th, l) * bytes;
      uint8_t incoming[8];
      store_value(t, incoming, ir::convert(n.tensor->dtype, t, values[size_t(lane) * local + l]));
      w.cta.store_shared(w, w.thread(lane), byte, incoming, bytes, n.loc, "print");
    }
  }
  w.cta.arrive_at_barrier(w, n.barrier, mask, n.loc, "print");
  if (w.thread_in_group(0) == 0 && (mask & 1)) {
    const std::string header =
        n.memory == "reg"
            ? fmt::format("reg<{}>[{}] {}", dtype_name(n.tensor->dtype), fmt::join(shape, ", "), layout.str())
            : fmt::format("{}<{}>[{}]", n.memory, dtype_name(n.tensor->dtype), fmt::join(shape, ", "));
    const std::string text =
        fmt::format("{}: {}, block ({})\n", n.label, header, fmt::join(n.block, ", ")) +
        printed_rows(shape.empty() ? std::vector<int>{1} : shape, t, [&](const std::vector<int>& c) {
          int64_t index = 0;
          for (int d = 0; d < rank; ++d) index = index * shape[size_t(d)] + c[size_t(d)];
          const int64_t byte = base + index * bytes;
          w.cta.access_shared(w, byte, bytes, false, n.loc, "print");
          return load_value(t, &w.cta.smem[size_t(byte)]);
        });
    std::fputs(text.c_str(), stdout);
  }
  w.cta.arrive_at_barrier(w, n.barrier, mask, n.loc, "print");
}

// As the generated code: the group's first thread reads the tile from shared memory as it stands,
// each read checked as load_shared's are.
void exec_PrintShared(Warp& w, const ir::PrintSharedNode& n, Mask mask) {
  if (!in_block(w, n.block) || w.thread_in_group(0) != 0 || !(mask & 1)) return;
  const ir::SharedTensor& s = n.tensor;
  const Lanes view = s->offset ? w.eval(s->offset, 1u) : Lanes{};
  const std::vector<Lanes> offsets(size_t(s->rank()), Lanes{});
  const std::string text =
      fmt::format("{}: {}, block ({})\n", n.label, ir::shared_print_header(*s), fmt::join(n.block, ", ")) +
      printed_rows(s->shape, ir::printed_type(s->dtype), [&](const std::vector<int>& c) {
        const SharedAddress a = shared_address(w, s, view, 0, offsets, c.data(), n.loc);
        const int bytes = is_packed(s->dtype) ? packed_bytes(s->dtype, a.shift) : dtype_bytes(s->dtype);
        check_shared_read(w, w.cta, a, bytes, 0, n.loc, "printing");
        w.cta.access_shared(w, a.byte, bytes, false, n.loc, "print");
        return is_packed(s->dtype) ? load_packed(s->dtype, &w.cta.smem[size_t(a.byte)], a.shift)
                                   : load_value(s->dtype, &w.cta.smem[size_t(a.byte)]);
      });
  std::fputs(text.c_str(), stdout);
}

void exec_PrintValues(Warp& w, const ir::PrintValuesNode& n, Mask mask) {
  if (!in_block(w, n.block) || w.thread_in_group(0) != 0 || !(mask & 1)) return;
  std::string text;
  size_t from = 0;
  for (const ir::Expr& v : n.values) {
    const size_t at = n.format.find("{}", from);
    text += n.format.substr(from, at - from) + printed(v->type.dtype, w.eval(v, 1u)[0]);
    from = at + 2;
  }
  std::fputs((text + n.format.substr(from) + "\n").c_str(), stdout);
}

}  // namespace tessel::sim
