#include "ptx.hpp"

#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessel/error.hpp"
#include "tessel/layout/wgmma_atoms.hpp"

namespace tessel::codegen {

namespace {

PtxGroup scalar(std::string name, std::string constraint) { return {std::move(name), std::move(constraint), 1, false}; }
PtxGroup vector(std::string name, std::string constraint, int size = PtxGroup::kPerEmission) {
  return {std::move(name), std::move(constraint), size, true};
}
PtxGroup optional_argument(std::string name, std::string constraint) {
  return {std::move(name), std::move(constraint), 1, false, true};
}

bool is_output(const PtxGroup& g) { return g.constraint[0] == '=' || g.constraint[0] == '+'; }

// Fills the holes of `text`: `{name}` from `hole(name)`, which answers false for names it does not know.
std::string fill_holes(const std::string& text, const std::string& what,
                       const std::function<bool(const std::string&, std::string*)>& hole) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('{', i);
    if (open == std::string::npos) break;
    const size_t close = text.find('}', open);
    TESSEL_CHECK(close != std::string::npos, "PTX row {} has an unclosed hole in \"{}\"", what, text);
    out += text.substr(i, open - i);
    const std::string name = text.substr(open + 1, close - open - 1);
    std::string value;
    TESSEL_CHECK(hole(name, &value), "PTX row {} has no operand group or modifier named {}", what, name);
    out += value;
    i = close + 1;
  }
  return out + text.substr(i);
}

// The number of each group's first operand: inline asm numbers outputs first, then inputs.
std::vector<int> first_operand_numbers(const PtxRow& row, const PtxOperands& operands) {
  TESSEL_CHECK(operands.size() == row.groups.size(), "{} takes {} operand groups, {} given", row.name,
               row.groups.size(), operands.size());
  std::vector<int> first(row.groups.size());
  int next = 0;
  for (const bool outputs : {true, false})
    for (size_t g = 0; g < row.groups.size(); ++g) {
      const PtxGroup& group = row.groups[g];
      if (is_output(group) != outputs) continue;
      const int given = int(operands[g].size());
      if (group.size == PtxGroup::kPerEmission)
        TESSEL_CHECK(given > 0, "{} group {} needs at least one operand", row.name, group.name);
      else if (group.optional)
        TESSEL_CHECK(given <= 1, "{} group {} takes at most one operand, {} given", row.name, group.name, given);
      else
        TESSEL_CHECK(given == group.size, "{} group {} takes {} operands, {} given", row.name, group.name, group.size,
                     given);
      first[g] = next;
      next += given;
    }
  return first;
}

std::string asm_statement(PtxEffect effect, const std::string& text, const std::vector<std::string>& outputs,
                          const std::vector<std::string>& inputs) {
  std::string s = fmt::format("asm{}(\"{}\" :", effect == PtxEffect::Pure ? "" : " volatile", text);
  if (!outputs.empty()) s += fmt::format(" {} ", fmt::join(outputs, ", "));
  s += ":";
  if (!inputs.empty()) s += fmt::format(" {}", fmt::join(inputs, ", "));
  if (effect == PtxEffect::Memory) s += inputs.empty() ? ": \"memory\"" : " : \"memory\"";
  return s + ");";
}

// The predicate a wait loop's instruction sets; scoped to the loop's braces.
constexpr const char* kWaitPredicate = "ready";

}  // namespace

// One case per instruction, without a default: an enumerator without a row does not compile.
const PtxRow& ptx_row(Ptx instruction) {
  using ir::Arch;
  switch (instruction) {
    // PTX ISA, cvt: f32 to the nearest f16 or bf16 (ties to even), and f16 to f32 exactly.
    case Ptx::CvtRnF16F32: {
      static const PtxRow row{"cvt.rn.f16.f32",
                              "cvt.rn.f16.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=h"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::CvtF32F16: {
      static const PtxRow row{"cvt.f32.f16",
                              "cvt.f32.f16 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "h")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::CvtRnaTf32F32: {
      static const PtxRow row{"cvt.rna.tf32.f32",
                              "cvt.rna.tf32.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=r"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::CvtRnBf16F32: {
      static const PtxRow row{"cvt.rn.bf16.f32",
                              "cvt.rn.bf16.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=h"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.9.21: two f32 to a pair of bf16, each to the nearest, ties to even; `hi` in the
    // upper half.
    case Ptx::CvtRnBf16x2F32: {
      static const PtxRow row{"cvt.rn.bf16x2.f32",
                              "cvt.rn.bf16x2.f32 {dst}, {hi}, {lo};",
                              Arch::Sm80,
                              {scalar("dst", "=r"), scalar("hi", "f"), scalar("lo", "f")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA, cvt: two f32 to a pair of fp8 ({format} e4m3 or e5m2), `hi` in the upper byte, to the
    // nearest (ties to even) and saturated to the largest finite value; and a pair of fp8 to f16
    // exactly. sm_89 and newer.
    case Ptx::CvtRnSatfiniteF8x2F32: {
      static const PtxRow row{"cvt.rn.satfinite.f8x2.f32",
                              "cvt.rn.satfinite.{format}x2.f32 {dst}, {hi}, {lo};",
                              Arch::Sm90a,
                              {scalar("dst", "=h"), scalar("hi", "f"), scalar("lo", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::CvtRnF16x2F8x2: {
      static const PtxRow row{"cvt.rn.f16x2.f8x2",
                              "cvt.rn.f16x2.{format}x2 {dst}, {src};",
                              Arch::Sm90a,
                              {scalar("dst", "=r"), scalar("src", "h")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.4.6 and 9.7.4.10: fused multiply-add of two f16 (bf16) pairs in 32-bit registers,
    // one rounding to nearest even per half.
    case Ptx::FmaF16x2: {
      static const PtxRow row{"fma.rn.f16x2",
                              "fma.rn.f16x2 {dst}, {a}, {b}, {c};",
                              Arch::Sm80,
                              {scalar("dst", "=r"), scalar("a", "r"), scalar("b", "r"), scalar("c", "r")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.8.7: bytes of {b, a} picked by the four nibbles of `selector` (0-3 from a, 4-7 from b).
    case Ptx::Prmt: {
      static const PtxRow row{"prmt.b32",
                              "prmt.b32 {dst}, {a}, {b}, {selector};",
                              Arch::Sm80,
                              {scalar("dst", "=r"), scalar("a", "r"), scalar("b", "r"), scalar("selector", "n")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.8.6: any function of three 32-bit values, bit by bit, given by its truth table
    // (lut: the result for a = 0xf0, b = 0xcc, c = 0xaa). Written out, since ptxas splits
    // (a & b) | c with two constants into two LOP3 (one instruction holds one immediate).
    case Ptx::Lop3: {
      static const PtxRow row{
          "lop3.b32",
          "lop3.b32 {dst}, {a}, {b}, {c}, {lut};",
          Arch::Sm80,
          {scalar("dst", "=r"), scalar("a", "r"), scalar("b", "r"), scalar("c", "r"), scalar("lut", "n")},
          PtxEffect::Pure};
      return row;
    }
    case Ptx::FmaBf16x2: {
      static const PtxRow row{"fma.rn.bf16x2",
                              "fma.rn.bf16x2 {dst}, {a}, {b}, {c};",
                              Arch::Sm80,
                              {scalar("dst", "=r"), scalar("a", "r"), scalar("b", "r"), scalar("c", "r")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.4: the fast approximations of 2^x, log2 x, tanh x (sm_75) and the square root.
    // 2^x flushes subnormal results to zero: one MUFU.EX2, where the non-ftz form adds a range fix.
    case Ptx::Ex2Approx: {
      static const PtxRow row{"ex2.approx.ftz.f32",
                              "ex2.approx.ftz.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::Lg2Approx: {
      static const PtxRow row{"lg2.approx.f32",
                              "lg2.approx.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::TanhApprox: {
      static const PtxRow row{"tanh.approx.f32",
                              "tanh.approx.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::SqrtApprox: {
      static const PtxRow row{"sqrt.approx.f32",
                              "sqrt.approx.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::SinApprox: {
      static const PtxRow row{"sin.approx.f32",
                              "sin.approx.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    case Ptx::CosApprox: {
      static const PtxRow row{"cos.approx.f32",
                              "cos.approx.f32 {dst}, {src};",
                              Arch::Sm80,
                              {scalar("dst", "=f"), scalar("src", "f")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.9.25.3: cp.async of 16 bytes bypassing L1 (.cg), or 8 and 4 bytes through it
    // (.ca); the source size operand zero-fills the rest of the run.
    case Ptx::CpAsyncCg16: {
      static const PtxRow row{"cp.async.cg",
                              "cp.async.cg.shared.global [{dst}], [{src}], 16, {src_bytes};",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l"), scalar("src_bytes", "r")}};
      return row;
    }
    case Ptx::CpAsyncCa8: {
      static const PtxRow row{"cp.async.ca",
                              "cp.async.ca.shared.global [{dst}], [{src}], 8, {src_bytes};",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l"), scalar("src_bytes", "r")}};
      return row;
    }
    case Ptx::CpAsyncCa4: {
      static const PtxRow row{"cp.async.ca",
                              "cp.async.ca.shared.global [{dst}], [{src}], 4, {src_bytes};",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l"), scalar("src_bytes", "r")}};
      return row;
    }
    // The same copies of a run that lies wholly inside the source: no source size, no zero-fill.
    case Ptx::CpAsyncCg16Whole: {
      static const PtxRow row{"cp.async.cg",
                              "cp.async.cg.shared.global [{dst}], [{src}], 16;",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l")}};
      return row;
    }
    case Ptx::CpAsyncCa8Whole: {
      static const PtxRow row{"cp.async.ca",
                              "cp.async.ca.shared.global [{dst}], [{src}], 8;",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l")}};
      return row;
    }
    case Ptx::CpAsyncCa4Whole: {
      static const PtxRow row{"cp.async.ca",
                              "cp.async.ca.shared.global [{dst}], [{src}], 4;",
                              Arch::Sm80,
                              {scalar("dst", "r"), scalar("src", "l")}};
      return row;
    }
    // PTX ISA, cp.async.commit_group / wait_group: the thread's copies since the last commit form a
    // group; waiting leaves at most `pending` groups in flight.
    case Ptx::CpAsyncCommitGroup: {
      static const PtxRow row{"cp.async.commit_group", "cp.async.commit_group;", Arch::Sm80, {}};
      return row;
    }
    case Ptx::CpAsyncWaitGroup: {
      static const PtxRow row{
          "cp.async.wait_group", "cp.async.wait_group {pending};", Arch::Sm80, {scalar("pending", "n")}};
      return row;
    }
    case Ptx::CpAsyncWaitAll: {
      static const PtxRow row{"cp.async.wait_all", "cp.async.wait_all;", Arch::Sm80, {}};
      return row;
    }
    // PTX ISA 9.7.14.5.15: ldmatrix, one to four 8x8 matrices of 16-bit elements, one register each.
    case Ptx::Ldmatrix: {
      static const PtxRow row{"ldmatrix",
                              "ldmatrix.sync.aligned.m8n8.x{#dst}.shared.b16 {dst}, [{src}];",
                              Arch::Sm80,
                              {vector("dst", "=r"), scalar("src", "r")}};
      return row;
    }
    // PTX ISA 9.7.14.5.16: stmatrix, the inverse of ldmatrix.
    case Ptx::Stmatrix: {
      static const PtxRow row{"stmatrix",
                              "stmatrix.sync.aligned.m8n8.x{#src}.shared.b16 [{dst}], {src};",
                              Arch::Sm90a,
                              {scalar("dst", "r"), vector("src", "r")}};
      return row;
    }
    // PTX ISA 9.7.14.5.14: mma.sync with row-major A and column-major B, accumulating in place;
    // shape and types come from the atom (mma_sync_modifiers); {saturation} is .satfinite or empty.
    case Ptx::MmaSync: {
      static const PtxRow row{
          "mma.sync",
          "mma.sync.aligned.{shape}.row.col{saturation}.{d_type}.{a_type}.{b_type}.{d_type} {d}, {a}, {b}, {d};",
          Arch::Sm80,
          {vector("d", "+{d_reg}"), vector("a", "r"), vector("b", "r")},
          PtxEffect::Ordered};
      return row;
    }
    // PTX ISA 9.7.15.7: wgmma.fence orders the warpgroup's register accesses before the wgmma that
    // follow; commit_group closes a group of them; wait_group leaves at most `pending` running.
    case Ptx::WgmmaFence: {
      static const PtxRow row{"wgmma.fence", "wgmma.fence.sync.aligned;", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA 9.7.15.5.2: m64nNk{k} into {d_type} (f32, or s32 for integers), A and B from shared
    // memory by descriptor, each K-major or MN-major (imm-trans-a, imm-trans-b 0 or 1), scale-d 1
    // (accumulate); {operand_scales} is ", 1, 1" for floating-point types (imm-scale-a and -b: no
    // negation) and empty for integers, which have neither; {saturation} is .satfinite (integers) or
    // empty.
    case Ptx::WgmmaMmaSS: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a_desc}, "
          "{b_desc}, 1{operand_scales}, {trans_a}, {trans_b};",
          Arch::Sm90a,
          {vector("d", "+{d_reg}"), scalar("a_desc", "l"), scalar("trans_a", "n"), scalar("b_desc", "l"),
           scalar("trans_b", "n")}};
      return row;
    }
    // The same with scale-d 0: d = a b, d's old value neither read nor needed (an output only, so
    // that nothing defines it while other wgmma run, which would make ptxas serialize them).
    case Ptx::WgmmaMmaSSOverwrite: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a_desc}, "
          "{b_desc}, 0{operand_scales}, {trans_a}, {trans_b};",
          Arch::Sm90a,
          {vector("d", "={d_reg}"), scalar("a_desc", "l"), scalar("trans_a", "n"), scalar("b_desc", "l"),
           scalar("trans_b", "n")}};
      return row;
    }
    // The same for the types wgmma does not transpose (8-bit: m64nNk32, e4m3, e5m2, s8 or u8 each;
    // tf32: m64nNk8): both operands K-major, no imm-trans.
    case Ptx::WgmmaMmaSSKMajor: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a_desc}, "
          "{b_desc}, 1{operand_scales};",
          Arch::Sm90a,
          {vector("d", "+{d_reg}"), scalar("a_desc", "l"), scalar("b_desc", "l")}};
      return row;
    }
    case Ptx::WgmmaMmaSSKMajorOverwrite: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a_desc}, "
          "{b_desc}, 0{operand_scales};",
          Arch::Sm90a,
          {vector("d", "={d_reg}"), scalar("a_desc", "l"), scalar("b_desc", "l")}};
      return row;
    }
    // The same with A from four 32-bit registers (two 16-bit, four 8-bit or one tf32 element each;
    // no imm-trans-a).
    case Ptx::WgmmaMmaRS: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a}, "
          "{b_desc}, 1{operand_scales}, {trans_b};",
          Arch::Sm90a,
          {vector("d", "+{d_reg}"), vector("a", "r", 4), scalar("b_desc", "l"), scalar("trans_b", "n")}};
      return row;
    }
    case Ptx::WgmmaMmaRSOverwrite: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a}, "
          "{b_desc}, 0{operand_scales}, {trans_b};",
          Arch::Sm90a,
          {vector("d", "={d_reg}"), vector("a", "r", 4), scalar("b_desc", "l"), scalar("trans_b", "n")}};
      return row;
    }
    case Ptx::WgmmaMmaRSKMajor: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a}, "
          "{b_desc}, 1{operand_scales};",
          Arch::Sm90a,
          {vector("d", "+{d_reg}"), vector("a", "r", 4), scalar("b_desc", "l")}};
      return row;
    }
    case Ptx::WgmmaMmaRSKMajorOverwrite: {
      static const PtxRow row{
          "wgmma.mma_async",
          "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d_type}.{a_type}.{b_type}{saturation} {d}, {a}, "
          "{b_desc}, 0{operand_scales};",
          Arch::Sm90a,
          {vector("d", "={d_reg}"), vector("a", "r", 4), scalar("b_desc", "l")}};
      return row;
    }
    case Ptx::WgmmaCommitGroup: {
      static const PtxRow row{"wgmma.commit_group", "wgmma.commit_group.sync.aligned;", Arch::Sm90a, {}};
      return row;
    }
    case Ptx::WgmmaWaitGroup: {
      static const PtxRow row{
          "wgmma.wait_group", "wgmma.wait_group.sync.aligned {pending};", Arch::Sm90a, {scalar("pending", "n")}};
      return row;
    }
    // Pins an accumulator register at this point of the program: the compiler may not move its
    // accesses across the wgmma.wait_group or wgmma.fence next to it. The text is a PTX comment,
    // so no instruction reads the register: ptxas serializes the wgmma pipeline when any
    // instruction reads an accumulator of a wgmma still in flight, a move to itself included.
    // {reg_kind} is f for an f32 accumulator, r for an s32 one.
    case Ptx::WgmmaFenceOperand: {
      static const PtxRow row{
          "wgmma operand fence", "// wgmma operand {reg}", Arch::Sm90a, {scalar("reg", "+{reg_kind}")}};
      return row;
    }
    // PTX ISA 9.7.13.15 (mbarrier): a barrier's phase expects `count` arrivals.
    case Ptx::MbarrierInit: {
      static const PtxRow row{"mbarrier.init",
                              "mbarrier.init.shared::cta.b64 [{bar}], {count};",
                              Arch::Sm80,
                              {scalar("bar", "r"), scalar("count", "r")}};
      return row;
    }
    // PTX ISA, membar/fence: makes this thread's mbarrier.init visible to the async proxy and the cluster.
    case Ptx::FenceMbarrierInit: {
      static const PtxRow row{"fence.mbarrier_init", "fence.mbarrier_init.release.cluster;", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA 9.7.13.15, mbarrier.arrive: one arrival (release at CTA scope); the phase token is not kept. A
    // count other than 1 exists from sm_90.
    case Ptx::MbarrierArrive: {
      static const PtxRow row{
          "mbarrier.arrive", "mbarrier.arrive.shared::cta.b64 _, [{bar}];", Arch::Sm80, {scalar("bar", "r")}};
      return row;
    }
    case Ptx::MbarrierArriveCount: {
      static const PtxRow row{"mbarrier.arrive",
                              "mbarrier.arrive.shared::cta.b64 _, [{bar}], {count};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("count", "r")}};
      return row;
    }
    // PTX ISA 9.7.13.15, mbarrier.arrive.expect_tx and mbarrier.expect_tx: raise the expected transaction bytes (then
    // arrive once).
    case Ptx::MbarrierArriveExpectTx: {
      static const PtxRow row{"mbarrier.arrive.expect_tx",
                              "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{bar}], {bytes};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("bytes", "r")}};
      return row;
    }
    case Ptx::MbarrierExpectTx: {
      static const PtxRow row{"mbarrier.expect_tx",
                              "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{bar}], {bytes};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("bytes", "r")}};
      return row;
    }
    // PTX ISA 9.7.13.15.16: parity waits. test_wait never blocks and orders as acquire at CTA
    // scope; try_wait may suspend the thread for a while and may still return false, so both run
    // in a loop; its semantics (acquire, relaxed) and scope (cta, cluster) are modifiers.
    case Ptx::MbarrierTestWaitParityLoop: {
      static const PtxRow row{"mbarrier.test_wait.parity",
                              "mbarrier.test_wait.parity.shared::cta.b64 {ready}, [{bar}], {parity};",
                              Arch::Sm80,
                              {scalar("bar", "r"), scalar("parity", "r")},
                              PtxEffect::Memory,
                              true};
      return row;
    }
    case Ptx::MbarrierTryWaitParityLoop: {
      static const PtxRow row{"mbarrier.try_wait.parity",
                              "mbarrier.try_wait.parity.{sem}.{scope}.shared::cta.b64 {ready}, [{bar}], {parity};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("parity", "r")},
                              PtxEffect::Memory,
                              true};
      return row;
    }
    // One test or try, its predicate turned into 0 or 1; the predicate's name is unique per emission.
    case Ptx::MbarrierTestWaitParity: {
      static const PtxRow row{"mbarrier.test_wait.parity",
                              ".reg .pred tessel_test_%=; "
                              "mbarrier.test_wait.parity.shared::cta.b64 tessel_test_%=, [{bar}], {parity}; "
                              "selp.u32 {result}, 1, 0, tessel_test_%=;",
                              Arch::Sm80,
                              {scalar("result", "=r"), scalar("bar", "r"), scalar("parity", "r")}};
      return row;
    }
    case Ptx::MbarrierTryWaitParity: {
      static const PtxRow row{
          "mbarrier.try_wait.parity",
          ".reg .pred tessel_try_%=; "
          "mbarrier.try_wait.parity.{sem}.{scope}.shared::cta.b64 tessel_try_%=, [{bar}], {parity}; "
          "selp.u32 {result}, 1, 0, tessel_try_%=;",
          Arch::Sm90a,
          {scalar("result", "=r"), scalar("bar", "r"), scalar("parity", "r")}};
      return row;
    }
    // PTX ISA, membar/fence: orders this thread's generic-proxy accesses of the space before its later
    // async-proxy ones (and the reverse); `{space}` is ".shared::cta", ".global", ... or empty.
    case Ptx::FenceProxyAsync: {
      static const PtxRow row{"fence.proxy.async", "fence.proxy.async{space};", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA, membar/fence: fence.{sem} ("acq_rel", "sc") at {scope} ("cta", "cluster", "gpu",
    // "sys"); the memory consistency model's release and acquire patterns give it its meaning.
    case Ptx::MemoryFence: {
      static const PtxRow row{"fence", "fence.{sem}.{scope};", Arch::Sm80, {}};
      return row;
    }
    // PTX ISA, griddepcontrol: wait until the prerequisite grids have completed and their memory
    // operations are visible; a memory clobber, so that no access moves above it.
    case Ptx::GridDependencyWait: {
      static const PtxRow row{"griddepcontrol.wait", "griddepcontrol.wait;", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA, griddepcontrol: the dependent grids may be scheduled once every block of this one
    // has executed it or ended.
    case Ptx::LaunchDependents: {
      static const PtxRow row{"griddepcontrol.launch_dependents", "griddepcontrol.launch_dependents;", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA 9.7.9.25.5.1: cp.async.bulk.tensor, shared -> global through the tensor map at
    // generic address {map}, the box at coordinates {coords} (innermost first; their number is the
    // rank), completing in the thread's bulk group.
    case Ptx::TmaStore: {
      static const PtxRow row{
          "cp.async.bulk.tensor",
          "cp.async.bulk.tensor.{#coords}d.global.shared::cta.bulk_group{l2_hint} [{map}, {coords}], [{src}]{policy};",
          Arch::Sm90a,
          {scalar("map", "l"), vector("coords", "r"), scalar("src", "r"), optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 9.7.9.25.5.1: cp.async.bulk.tensor, global -> shared: the box at coordinates
    // {coords} (innermost first) of the tensor map at generic address {map} lands at {dst} and
    // performs complete-tx of the box's bytes on the mbarrier at {bar}.
    case Ptx::TmaLoad: {
      static const PtxRow row{
          "cp.async.bulk.tensor",
          "cp.async.bulk.tensor.{#coords}d.shared::cluster.global.mbarrier::complete_tx::bytes{l2_hint} "
          "[{dst}], [{map}, {coords}], [{bar}]{policy};",
          Arch::Sm90a,
          {scalar("dst", "r"), scalar("map", "l"), vector("coords", "r"), scalar("bar", "r"),
           optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 9.7.9.25.6: the thread's bulk copies since the last commit form a bulk group; waiting
    // leaves at most `pending` groups in flight (.read: only their reads of the source must be done).
    case Ptx::BulkCommitGroup: {
      static const PtxRow row{"cp.async.bulk.commit_group", "cp.async.bulk.commit_group;", Arch::Sm90a, {}};
      return row;
    }
    case Ptx::BulkWaitGroup: {
      static const PtxRow row{
          "cp.async.bulk.wait_group", "cp.async.bulk.wait_group {pending};", Arch::Sm90a, {scalar("pending", "n")}};
      return row;
    }
    case Ptx::BulkWaitGroupRead: {
      static const PtxRow row{"cp.async.bulk.wait_group.read",
                              "cp.async.bulk.wait_group.read {pending};",
                              Arch::Sm90a,
                              {scalar("pending", "n")}};
      return row;
    }
    // PTX ISA 9.7.13.1: bar.sync (barrier.sync.aligned) on a named barrier that completes when
    // `threads` threads (a multiple of 32, counted per warp) arrived.
    // PTX ISA 9.7.13.5-6 and 9.7.9.8-9: atom, red, and ld/st with a memory order. The emitter
    // supplies the order {sem} and {scope}, the state space {space} (".global", ".shared::cta", or
    // "" for a generic address), the operation {op} ("add", "add.noftz" for f16/bf16, ...), the
    // type {type}, the constraints of the value ({reg}) and address ({address_reg}), and a global
    // view's L2 hint: {l2_hint} .L2::cache_hint with its {policy} (add_cache_hint), or neither.
    // atom.cas has no cache hint.
    case Ptx::AtomRmw: {
      static const PtxRow row{"atom",
                              "atom.{sem}.{scope}{space}.{op}{l2_hint}.{type} {old}, [{address}], {value}{policy};",
                              Arch::Sm80,
                              {scalar("old", "={reg}"), scalar("address", "{address_reg}"), scalar("value", "{reg}"),
                               optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::AtomCas: {
      static const PtxRow row{"atom.cas",
                              "atom.{sem}.{scope}{space}.cas.{type} {old}, [{address}], {expected}, {value};",
                              Arch::Sm80,
                              {scalar("old", "={reg}"), scalar("address", "{address_reg}"), scalar("expected", "{reg}"),
                               scalar("value", "{reg}")}};
      return row;
    }
    case Ptx::RedRmw: {
      static const PtxRow row{
          "red",
          "red.{sem}.{scope}{space}.{op}{l2_hint}.{type} [{address}], {value}{policy};",
          Arch::Sm80,
          {scalar("address", "{address_reg}"), scalar("value", "{reg}"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::LdOrdered: {
      static const PtxRow row{
          "ld.relaxed/acquire",
          "ld.{sem}.{scope}{space}{l2_hint}.{type} {value}, [{address}]{policy};",
          Arch::Sm80,
          {scalar("value", "={reg}"), scalar("address", "{address_reg}"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::StOrdered: {
      static const PtxRow row{
          "st.relaxed/release",
          "st.{sem}.{scope}{space}{l2_hint}.{type} [{address}], {value}{policy};",
          Arch::Sm80,
          {scalar("address", "{address_reg}"), scalar("value", "{reg}"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::BarSync: {
      static const PtxRow row{
          "bar.sync", "bar.sync {barrier}, {threads};", Arch::Sm80, {scalar("barrier", "n"), scalar("threads", "n")}};
      return row;
    }
    // PTX ISA 9.7.19.5: setmaxnreg, run by every warp of a warpgroup: the warps' registers per
    // thread become `registers`, released to or taken from the block's pool.
    case Ptx::SetmaxnregInc: {
      static const PtxRow row{"setmaxnreg.inc",
                              "setmaxnreg.inc.sync.aligned.u32 {registers};",
                              Arch::Sm90a,
                              {scalar("registers", "n")},
                              PtxEffect::Ordered};
      return row;
    }
    case Ptx::SetmaxnregDec: {
      static const PtxRow row{"setmaxnreg.dec",
                              "setmaxnreg.dec.sync.aligned.u32 {registers};",
                              Arch::Sm90a,
                              {scalar("registers", "n")},
                              PtxEffect::Ordered};
      return row;
    }
    // PTX ISA 9.7.16.7: a warp allocates `columns` columns of the block's tensor memory (a power
    // of two, 32..512), writing their address to the shared word at {dst}; relinquishing the
    // permit forbids later allocations; dealloc frees them. {cta_group} is the kernel's (1, or 2:
    // a warp of each block of the pair, together), as in every tcgen05 row.
    case Ptx::Tcgen05Alloc: {
      static const PtxRow row{"tcgen05.alloc",
                              "tcgen05.alloc.cta_group::{cta_group}.sync.aligned.shared::cta.b32 [{dst}], {columns};",
                              Arch::Sm100a,
                              {scalar("dst", "r"), scalar("columns", "n")}};
      return row;
    }
    case Ptx::Tcgen05RelinquishAllocPermit: {
      static const PtxRow row{"tcgen05.relinquish_alloc_permit",
                              "tcgen05.relinquish_alloc_permit.cta_group::{cta_group}.sync.aligned;",
                              Arch::Sm100a,
                              {}};
      return row;
    }
    case Ptx::Tcgen05Dealloc: {
      static const PtxRow row{"tcgen05.dealloc",
                              "tcgen05.dealloc.cta_group::{cta_group}.sync.aligned.b32 {taddr}, {columns};",
                              Arch::Sm100a,
                              {scalar("taddr", "r"), scalar("columns", "n")}};
      return row;
    }
    // PTX ISA 9.7.16.6: order this thread's tcgen05 operations before the thread syncs that
    // follow, and those after the syncs that precede.
    case Ptx::Tcgen05FenceBeforeThreadSync: {
      static const PtxRow row{
          "tcgen05.fence::before_thread_sync", "tcgen05.fence::before_thread_sync;", Arch::Sm100a, {}};
      return row;
    }
    case Ptx::Tcgen05FenceAfterThreadSync: {
      static const PtxRow row{
          "tcgen05.fence::after_thread_sync", "tcgen05.fence::after_thread_sync;", Arch::Sm100a, {}};
      return row;
    }
    // PTX ISA 9.7.16.10.9.1: D (tensor memory at {tmem}) = A B (+ D when {enable} is not 0), A and
    // B from shared memory by descriptor, the shape and types in the instruction descriptor
    // {idesc}; {kind} f16 or f8f6f4. The predicate's name is unique per emission.
    case Ptx::Tcgen05Mma: {
      static const PtxRow row{
          "tcgen05.mma",
          ".reg .pred tessel_d_%=; setp.ne.b32 tessel_d_%=, {enable}, 0; "
          "tcgen05.mma.cta_group::{cta_group}.kind::{kind} [{tmem}], {a_desc}, {b_desc}, {idesc}, tessel_d_%=;",
          Arch::Sm100a,
          {scalar("tmem", "r"), scalar("a_desc", "l"), scalar("b_desc", "l"), scalar("idesc", "r"),
           scalar("enable", "r")}};
      return row;
    }
    // The block-scaled kinds ({kind} mxf8f6f4, mxf4 or mxf4nvf4, {vector} scales per row per
    // instruction): each product scaled by the scales in tensor memory at {scale_a} and {scale_b},
    // the bytes the instruction descriptor's scale IDs name.
    case Ptx::Tcgen05MmaBlockScaled: {
      static const PtxRow row{
          "tcgen05.mma.block_scale",
          ".reg .pred tessel_d_%=; setp.ne.b32 tessel_d_%=, {enable}, 0; "
          "tcgen05.mma.cta_group::{cta_group}.kind::{kind}.block_scale.scale_vec::{vector}X [{tmem}], {a_desc}, "
          "{b_desc}, {idesc}, [{scale_a}], [{scale_b}], tessel_d_%=;",
          Arch::Sm100a,
          {scalar("tmem", "r"), scalar("a_desc", "l"), scalar("b_desc", "l"), scalar("idesc", "r"),
           scalar("scale_a", "r"), scalar("scale_b", "r"), scalar("enable", "r")}};
      return row;
    }
    // PTX ISA 9.7.16.12.1: one arrival on the mbarrier at {bar} once the thread's earlier
    // tcgen05 operations complete.
    case Ptx::Tcgen05Commit: {
      static const PtxRow row{
          "tcgen05.commit",
          "tcgen05.commit.cta_group::{cta_group}.mbarrier::arrive::one.shared::cluster.b64 [{bar}];",
          Arch::Sm100a,
          {scalar("bar", "r")}};
      return row;
    }
    // The same arrival on the barrier at {bar}'s offset in every block of the cluster whose rank
    // bit is set in the 16-bit {mask}.
    case Ptx::Tcgen05CommitMulticast: {
      static const PtxRow row{"tcgen05.commit.multicast::cluster",
                              "tcgen05.commit.cta_group::{cta_group}.mbarrier::arrive::one.shared::cluster."
                              "multicast::cluster.b64 [{bar}], {mask};",
                              Arch::Sm100a,
                              {scalar("bar", "r"), scalar("mask", "h")}};
      return row;
    }
    // PTX ISA 9.7.16.9.2: 128 lanes x 256 bits (8 columns) at {taddr} from the shared matrix the
    // descriptor {desc} describes.
    case Ptx::Tcgen05Copy128x256b: {
      static const PtxRow row{"tcgen05.cp",
                              "tcgen05.cp.cta_group::{cta_group}.128x256b [{taddr}], {desc};",
                              Arch::Sm100a,
                              {scalar("taddr", "r"), scalar("desc", "l")}};
      return row;
    }
    // PTX ISA 9.7.16.9.2: 32 lanes x 128 bits (4 columns), each row written to the same lane of all
    // four lane quadrants.
    case Ptx::Tcgen05Copy32x128bWarpx4: {
      static const PtxRow row{"tcgen05.cp.warpx4",
                              "tcgen05.cp.cta_group::{cta_group}.32x128b.warpx4 [{taddr}], {desc};",
                              Arch::Sm100a,
                              {scalar("taddr", "r"), scalar("desc", "l")}};
      return row;
    }
    // PTX ISA 9.7.16.8.3: warp w moves lanes 32 (w mod 4) + lane, columns {taddr} + j for
    // j < {#r}, then waits for it, so the registers hold the data (or tensor memory does) when
    // the statement ends. {reg} is the registers' constraint letter.
    case Ptx::Tcgen05Load32x32b: {
      static const PtxRow row{"tcgen05.ld",
                              "tcgen05.ld.sync.aligned.32x32b.x{#r}.b32 {r}, [{taddr}]; tcgen05.wait::ld.sync.aligned;",
                              Arch::Sm100a,
                              {vector("r", "={reg}"), scalar("taddr", "r")}};
      return row;
    }
    case Ptx::Tcgen05Store32x32b: {
      static const PtxRow row{"tcgen05.st",
                              "tcgen05.st.sync.aligned.32x32b.x{#r}.b32 [{taddr}], {r}; tcgen05.wait::st.sync.aligned;",
                              Arch::Sm100a,
                              {scalar("taddr", "r"), vector("r", "{reg}")}};
      return row;
    }
    case Ptx::Tcgen05WaitLoad: {
      static const PtxRow row{"tcgen05.wait::ld", "tcgen05.wait::ld.sync.aligned;", Arch::Sm100a, {}};
      return row;
    }
    case Ptx::Tcgen05WaitStore: {
      static const PtxRow row{"tcgen05.wait::st", "tcgen05.wait::st.sync.aligned;", Arch::Sm100a, {}};
      return row;
    }
    // PTX ISA 9.7.13.3: every thread of every block of the cluster arrives (release), then waits
    // for all of them (acquire).
    case Ptx::ClusterArriveWait: {
      static const PtxRow row{"barrier.cluster",
                              "barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;",
                              Arch::Sm90a,
                              {}};
      return row;
    }
    // The two halves of it, the arrival release or relaxed (which orders no memory).
    case Ptx::ClusterArriveRelease: {
      static const PtxRow row{"barrier.cluster.arrive", "barrier.cluster.arrive.release.aligned;", Arch::Sm90a, {}};
      return row;
    }
    case Ptx::ClusterArriveRelaxed: {
      static const PtxRow row{
          "barrier.cluster.arrive.relaxed", "barrier.cluster.arrive.relaxed.aligned;", Arch::Sm90a, {}};
      return row;
    }
    case Ptx::ClusterWait: {
      static const PtxRow row{"barrier.cluster.wait", "barrier.cluster.wait.acquire.aligned;", Arch::Sm90a, {}};
      return row;
    }
    // PTX ISA 9.7.9.23: the generic address of the same shared byte in the block of cluster rank
    // {rank}, which generic loads and stores reach (distributed shared memory).
    case Ptx::MapaGeneric: {
      static const PtxRow row{"mapa",
                              "mapa.u64 {peer}, {address}, {rank};",
                              Arch::Sm90a,
                              {scalar("peer", "=l"), scalar("address", "l"), scalar("rank", "r")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.9.23 (mapa) and 9.7.13.15: the barrier at the same shared offset in the block of
    // cluster rank {rank} receives the arrivals (release at cluster scope); the mapped address lives
    // in a register whose name is unique per emission.
    case Ptx::MbarrierArriveRemote: {
      static const PtxRow row{"mbarrier.arrive.shared::cluster",
                              ".reg .b32 tessel_remote_%=; mapa.shared::cluster.u32 tessel_remote_%=, {bar}, {rank}; "
                              "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [tessel_remote_%=], {count};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("rank", "r"), scalar("count", "r")}};
      return row;
    }
    case Ptx::MbarrierArriveExpectTxRemote: {
      static const PtxRow row{"mbarrier.arrive.expect_tx.shared::cluster",
                              ".reg .b32 tessel_remote_%=; mapa.shared::cluster.u32 tessel_remote_%=, {bar}, {rank}; "
                              "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [tessel_remote_%=], "
                              "{bytes};",
                              Arch::Sm90a,
                              {scalar("bar", "r"), scalar("rank", "r"), scalar("bytes", "r")}};
      return row;
    }
    // PTX ISA 9.7.9.25.5.1: the TMA load of Ptx::TmaLoad, written at {dst}'s offset in every block
    // of the cluster whose rank bit is set in the 16-bit {mask}, each completing the box's bytes on
    // its own barrier at {bar}'s offset.
    case Ptx::TmaLoadMulticast: {
      static const PtxRow row{"cp.async.bulk.tensor.multicast::cluster",
                              "cp.async.bulk.tensor.{#coords}d.shared::cluster.global.mbarrier::complete_tx::bytes."
                              "multicast::cluster{l2_hint} [{dst}], [{map}, {coords}], [{bar}], {mask}{policy};",
                              Arch::Sm90a,
                              {scalar("dst", "r"), scalar("map", "l"), vector("coords", "r"), scalar("bar", "r"),
                               scalar("mask", "h"), optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 9.7.9.25.5.1: the TMA load of Ptx::TmaLoad in its cta_group::2 form, whose bytes
    // complete on the barrier at {bar}'s offset in the block of cluster rank {rank} of this block's
    // pair (mapa gives its address; a register whose name is unique per emission holds it).
    case Ptx::TmaLoadPeerBarrier: {
      static const PtxRow row{"cp.async.bulk.tensor.cta_group::2",
                              ".reg .b32 tessel_remote_%=; mapa.shared::cluster.u32 tessel_remote_%=, {bar}, {rank}; "
                              "cp.async.bulk.tensor.{#coords}d.cta_group::2.shared::cluster.global.mbarrier::"
                              "complete_tx::bytes{l2_hint} [{dst}], [{map}, {coords}], [tessel_remote_%=]{policy};",
                              Arch::Sm100a,
                              {scalar("dst", "r"), scalar("map", "l"), vector("coords", "r"), scalar("bar", "r"),
                               scalar("rank", "r"), optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 9.7.9.25.4.1 cp.async.bulk without a tensor map: {bytes} bytes from the generic
    // global address {src} to the shared address {dst}, completing them on the barrier at {bar};
    // and from shared to global in the issuing thread's bulk group.
    case Ptx::BulkCopyGlobalToShared: {
      static const PtxRow row{"cp.async.bulk.shared::cluster.global",
                              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{l2_hint} "
                              "[{dst}], [{src}], {bytes}, [{bar}]{policy};",
                              Arch::Sm90a,
                              {scalar("dst", "r"), scalar("src", "l"), scalar("bytes", "r"), scalar("bar", "r"),
                               optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::BulkCopySharedToGlobal: {
      static const PtxRow row{
          "cp.async.bulk.global.shared::cta",
          "cp.async.bulk.global.shared::cta.bulk_group{l2_hint} [{dst}], [{src}], {bytes}{policy};",
          Arch::Sm90a,
          {scalar("dst", "l"), scalar("src", "r"), scalar("bytes", "r"), optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 9.7.9.25.4.1 (cp.async.bulk) and 9.7.9.23 (mapa): {bytes} bytes from this block's
    // shared memory at {src} to the same offset as {dst} in the block of cluster rank {rank},
    // completing them on that block's barrier at {bar}'s offset; the mapped addresses live in
    // registers whose names are unique per emission.
    case Ptx::BulkCopySharedToCluster: {
      static const PtxRow row{
          "cp.async.bulk.shared::cluster.shared::cta",
          ".reg .b32 tessel_dst_%=, tessel_bar_%=; "
          "mapa.shared::cluster.u32 tessel_dst_%=, {dst}, {rank}; "
          "mapa.shared::cluster.u32 tessel_bar_%=, {bar}, {rank}; "
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
          "[tessel_dst_%=], [{src}], {bytes}, [tessel_bar_%=];",
          Arch::Sm90a,
          {scalar("dst", "r"), scalar("src", "r"), scalar("bytes", "r"), scalar("bar", "r"), scalar("rank", "r")}};
      return row;
    }
    // PTX ISA 9.7.9.12 st.async: {#src} 32-bit words from registers to the shared address {dst} of
    // the block of cluster rank {rank}, completing their bytes on that block's barrier at {bar}'s
    // offset; both addresses mapped by mapa into registers whose names are unique per emission.
    case Ptx::StAsync: {
      static const PtxRow row{"st.async",
                              ".reg .b32 tessel_dst_%=, tessel_bar_%=; "
                              "mapa.shared::cluster.u32 tessel_dst_%=, {dst}, {rank}; "
                              "mapa.shared::cluster.u32 tessel_bar_%=, {bar}, {rank}; "
                              "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [tessel_dst_%=], {src}, "
                              "[tessel_bar_%=];",
                              Arch::Sm90a,
                              {scalar("dst", "r"), scalar("src", "r"), scalar("bar", "r"), scalar("rank", "r")}};
      return row;
    }
    case Ptx::StAsyncVector: {
      static const PtxRow row{"st.async.v",
                              ".reg .b32 tessel_dst_%=, tessel_bar_%=; "
                              "mapa.shared::cluster.u32 tessel_dst_%=, {dst}, {rank}; "
                              "mapa.shared::cluster.u32 tessel_bar_%=, {bar}, {rank}; "
                              "st.async.shared::cluster.mbarrier::complete_tx::bytes.v{#src}.b32 [tessel_dst_%=], "
                              "{src}, [tessel_bar_%=];",
                              Arch::Sm90a,
                              {scalar("dst", "r"), vector("src", "r"), scalar("bar", "r"), scalar("rank", "r")}};
      return row;
    }
    // PTX ISA 9.7.13.17: asks to cancel the launch of a cluster that has not started; the 16-byte
    // response lands at {response} and completes its bytes on the mbarrier at {bar}.
    case Ptx::ClcTryCancel: {
      static const PtxRow row{"clusterlaunchcontrol.try_cancel",
                              "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
                              "[{response}], [{bar}];",
                              Arch::Sm100a,
                              {scalar("response", "r"), scalar("bar", "r")}};
      return row;
    }
    // The same request whose response lands at {response}'s offset in every block of the cluster,
    // each completing its bytes on its barrier at {bar}'s offset.
    case Ptx::ClcTryCancelMulticast: {
      static const PtxRow row{"clusterlaunchcontrol.try_cancel.multicast::cluster::all",
                              "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes."
                              "multicast::cluster::all.b128 [{response}], [{bar}];",
                              Arch::Sm100a,
                              {scalar("response", "r"), scalar("bar", "r")}};
      return row;
    }
    // PTX ISA 9.7.13.18: reads the response at {response}: {canceled} is 1 when a cluster was
    // cancelled, and {ctaid} holds its first block's x, y, z (and a fourth word nobody reads).
    case Ptx::ClcQuery: {
      static const PtxRow row{"clusterlaunchcontrol.query_cancel",
                              ".reg .b128 tessel_clc_%=; .reg .pred tessel_canceled_%=; "
                              "ld.shared.b128 tessel_clc_%=, [{response}]; "
                              "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 tessel_canceled_%=, "
                              "tessel_clc_%=; "
                              "selp.u32 {canceled}, 1, 0, tessel_canceled_%=; "
                              "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {ctaid}, tessel_clc_%=;",
                              Arch::Sm100a,
                              {scalar("canceled", "=r"), vector("ctaid", "=r", 4), scalar("response", "r")}};
      return row;
    }
    // PTX ISA 9.7.9.17 createpolicy: an L2 cache policy under which every line an access brings in
    // takes eviction priority {priority} (fraction 1.0), for the accesses that carry it.
    case Ptx::CreatePolicy: {
      static const PtxRow row{"createpolicy.fractional",
                              "createpolicy.fractional.L2::{priority}.b64 {policy}, 1.0;",
                              Arch::Sm80,
                              {scalar("policy", "=l")},
                              PtxEffect::Pure};
      return row;
    }
    // PTX ISA 9.7.9.8 ld and 9.7.9.10 st under a global view's qualifiers: a global access of one
    // register of {width} bits, or of a vector of 32-bit words; {nc} is .nc (loads through the
    // non-coherent cache), {l1} an L1 eviction priority, {l2_hint} .L2::cache_hint with the optional
    // {policy} (add_cache_hint); each may be empty. Memory: the compiler keeps them in order with the
    // thread's other accesses and its barriers, which it would not know they touch; plain loads and
    // stores it may move more freely.
    case Ptx::LdGlobalQualified: {
      static const PtxRow row{"ld.global (qualified)",
                              "ld.global{nc}{l1}{l2_hint}.{width} {dst}, [{src}]{policy};",
                              Arch::Sm80,
                              {scalar("dst", "={register}"), scalar("src", "l"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::LdGlobalQualifiedVector: {
      static const PtxRow row{"ld.global.v (qualified)",
                              "ld.global{nc}{l1}{l2_hint}.v{#dst}.b32 {dst}, [{src}]{policy};",
                              Arch::Sm80,
                              {vector("dst", "=r"), scalar("src", "l"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::StGlobalQualified: {
      static const PtxRow row{"st.global (qualified)",
                              "st.global{l1}{l2_hint}.{width} [{dst}], {src}{policy};",
                              Arch::Sm80,
                              {scalar("dst", "l"), scalar("src", "{register}"), optional_argument("policy", "l")}};
      return row;
    }
    case Ptx::StGlobalQualifiedVector: {
      static const PtxRow row{"st.global.v (qualified)",
                              "st.global{l1}{l2_hint}.v{#src}.b32 [{dst}], {src}{policy};",
                              Arch::Sm80,
                              {scalar("dst", "l"), vector("src", "r"), optional_argument("policy", "l")}};
      return row;
    }
    // PTX ISA 10.26: the global nanosecond timer, the same on every SM (a timeline's clock).
    case Ptx::GlobalTimer: {
      static const PtxRow row{"mov.u64 %globaltimer",
                              "mov.u64 {now}, %%globaltimer;",
                              Arch::Sm80,
                              {scalar("now", "=l")},
                              PtxEffect::Ordered};
      return row;
    }
  }
  TESSEL_CHECK(false, "no PTX row for instruction {}", int(instruction));
}

std::string ptx_asm(Ptx instruction, ir::Arch target, const PtxOperands& operands, const PtxModifiers& modifiers) {
  return render_ptx(ptx_row(instruction), target, operands, modifiers);
}

std::string render_ptx(const PtxRow& row, ir::Arch target, const PtxOperands& operands, const PtxModifiers& modifiers) {
  TESSEL_CHECK(int(target) >= int(row.min_target), "{} needs {} or newer, not {}", row.name,
               ir::arch_name(row.min_target), ir::arch_name(target));
  const std::vector<int> first = first_operand_numbers(row, operands);
  std::set<std::string> used;
  auto modifier = [&](const std::string& name, std::string* value) {
    auto it = modifiers.find(name);
    if (it == modifiers.end()) return false;
    used.insert(name);
    *value = it->second;
    return true;
  };
  std::set<size_t> written;
  auto hole = [&](const std::string& name, std::string* value) {
    const bool count = name[0] == '#';
    for (size_t g = 0; g < row.groups.size(); ++g) {
      if (row.groups[g].name != (count ? name.substr(1) : name)) continue;
      const int n = int(operands[g].size());
      if (count) {
        *value = std::to_string(n);
      } else {
        std::vector<std::string> numbers;
        for (int i = 0; i < n; ++i) numbers.push_back(fmt::format("%{}", first[g] + i));
        if (row.groups[g].optional)
          *value = n ? ", " + numbers[0] : "";
        else
          *value = row.groups[g].vector ? fmt::format("{{{}}}", fmt::join(numbers, ", ")) : numbers[0];
        written.insert(g);
      }
      return true;
    }
    if (row.wait_loop && name == kWaitPredicate) {
      *value = kWaitPredicate;
      return true;
    }
    return modifier(name, value);
  };
  std::string text = fill_holes(row.text, row.name, hole);
  TESSEL_CHECK(written.size() == row.groups.size(), "{} does not write every operand group in \"{}\"", row.name,
               row.text);
  if (row.wait_loop)
    text = fmt::format("{{ .reg .pred {0}; TESSEL_WAIT_%=: {1} @!{0} bra TESSEL_WAIT_%=; }}", kWaitPredicate, text);

  std::vector<std::string> outputs, inputs;
  for (size_t g = 0; g < row.groups.size(); ++g) {
    const std::string constraint = fill_holes(row.groups[g].constraint, row.name, modifier);
    for (const std::string& operand : operands[g])
      (is_output(row.groups[g]) ? outputs : inputs).push_back(fmt::format("\"{}\"({})", constraint, operand));
  }
  TESSEL_CHECK(used.size() == modifiers.size(), "{} was given modifiers it has no hole for", row.name);
  return asm_statement(row.effect, text, outputs, inputs);
}

std::string cache_policy_function(ir::CacheHint hint) {
  TESSEL_CHECK(hint != ir::CacheHint::Normal, "a cache policy for no cache hint");
  return fmt::format("tessel_l2_policy_{}", ir::cache_hint_name(hint));
}

std::string cache_policy(ir::CacheHint hint) { return cache_policy_function(hint) + "()"; }

void add_cache_hint(ir::CacheHint hint, PtxOperands& operands, PtxModifiers& modifiers) {
  const bool hinted = hint != ir::CacheHint::Normal;
  modifiers["l2_hint"] = hinted ? ".L2::cache_hint" : "";
  operands.push_back(hinted ? std::vector<std::string>{cache_policy(hint)} : std::vector<std::string>{});
}

std::string_view ptx_type(DType t) {
  if (t == DType::I4) return "s4";
  if (t == DType::U4) return "u4";
  switch (t) {
    case DType::Bool: return "pred";
    case DType::I8: return "s8";
    case DType::U8: return "u8";
    case DType::I16: return "s16";
    case DType::U16: return "u16";
    case DType::F8E4M3: return "e4m3";
    case DType::F8E5M2: return "e5m2";
    case DType::I32: return "s32";
    case DType::U32: return "u32";
    case DType::I64: return "s64";
    case DType::U64: return "u64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::TF32: return "tf32";
    case DType::F64: return "f64";
    case DType::E8M0:
    case TESSEL_PACKED_DTYPES: break;
  }
  TESSEL_CHECK(false, "no PTX type for dtype {}", int(t));
}

PtxModifiers mma_sync_modifiers(const MmaAtom& atom, DType a, DType b, DType accumulator, bool saturate) {
  TESSEL_CHECK(accumulator == DType::F32 || accumulator == DType::I32, "mma.sync accumulates in f32 or s32, not {}",
               dtype_name(accumulator));
  TESSEL_CHECK(!saturate || accumulator == DType::I32, "mma.sync saturates s32 sums only");
  return {{"shape", fmt::format("m{}n{}k{}", atom.m, atom.n, atom.k)},
          {"a_type", std::string(ptx_type(a))},
          {"b_type", std::string(ptx_type(b))},
          {"d_type", std::string(ptx_type(accumulator))},
          {"d_reg", accumulator == DType::F32 ? "f" : "r"},
          {"saturation", saturate ? ".satfinite" : ""}};
}

PtxModifiers wgmma_modifiers(int n, DType a, DType b, bool saturate) {
  const bool one_float_type = (a == DType::F16 || a == DType::BF16 || a == DType::TF32) && b == a;
  const bool integer = is_byte_integer(a) && is_byte_integer(b);
  TESSEL_CHECK(one_float_type || integer || (is_fp8(a) && is_fp8(b)),
               "wgmma takes f16, bf16, tf32, fp8 or 8-bit integer operands, not {} and {}", dtype_name(a),
               dtype_name(b));
  TESSEL_CHECK(!saturate || integer, "wgmma saturates s32 sums only");
  return {{"n", std::to_string(n)},
          {"k", std::to_string(wgmma_k(b))},
          {"a_type", std::string(ptx_type(a))},
          {"b_type", std::string(ptx_type(b))},
          {"d_type", integer ? "s32" : "f32"},
          {"d_reg", integer ? "r" : "f"},
          {"operand_scales", integer ? "" : ", 1, 1"},
          {"saturation", saturate ? ".satfinite" : ""}};
}

}  // namespace tessel::codegen
