// What the Kernel<S> template needs at trace time that does not depend on S: the kernel's name,
// and turning a finished trace into a kernel node.
#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "tessel/ir/target_limits.hpp"
#include "tessel/jit/kernel.hpp"
#include "tessel/lang/warp_roles.hpp"

namespace tessel::detail {

namespace {

// The element types that C++ spells otherwise, by their names in tessel: packed_int<4, true> is i4,
// packed_float<2, 1> f4e2m1, signed char (int8_t) i8, unsigned char (uint8_t) u8. (Parsed by hand:
// std::regex's template code can be interposed by other libraries of the process, PyTorch's.)
std::string with_element_type_names(std::string name) {
  // The two numbers or words of "<a, b>" at `at`, and where the text after '>' starts.
  const auto arguments = [&](size_t at, std::string& a, std::string& b) {
    const size_t comma = name.find(", ", at), close = name.find('>', at);
    if (comma == std::string::npos || close == std::string::npos || comma > close) return std::string::npos;
    a = name.substr(at, comma - at);
    b = name.substr(comma + 2, close - comma - 2);
    return close + 1;
  };
  for (const std::string_view type : {"tessel::packed_int<", "tessel::packed_float<"})
    for (size_t at; (at = name.find(type)) != std::string::npos;) {
      std::string a, b;
      const size_t end = arguments(at + type.size(), a, b);
      if (end == std::string::npos) break;
      const std::string spelled = type == "tessel::packed_int<"
                                      ? (b == "true" ? "i" : "u") + a
                                      : fmt::format("f{}e{}m{}", 1 + std::stoi(a) + std::stoi(b), a, b);
      name.replace(at, end - at, spelled);
    }
  for (const auto& [cxx, tessel] : {std::pair{"unsigned char", "u8"}, std::pair{"signed char", "i8"}})
    for (size_t at; (at = name.find(cxx)) != std::string::npos;) name.replace(at, std::string_view(cxx).size(), tessel);
  return name;
}

}  // namespace

std::string kernel_name_of(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string full = with_element_type_names(status == 0 && d ? d : t.name());
  std::free(d);
  for (size_t at; (at = full.find("(anonymous namespace)::")) != std::string::npos;) full.erase(at, 23);
  // Namespaces are dropped everywhere; template arguments become part of an identifier:
  // "ns::Matmul<tessel::bf16>" gives "Matmul_bf16".
  std::string name;
  size_t word = 0;  // where the identifier being read starts in `name`
  for (size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    if (c == ':') {
      name.resize(word);
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      if (i == 0 || !(std::isalnum(static_cast<unsigned char>(full[i - 1])) || full[i - 1] == '_')) word = name.size();
      name += c;
    } else if ((c == '<' || c == ',') && !name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

namespace {

std::array<int, 3> cluster_shape(const Attrs::Cluster& cluster, const std::string& name) {
  const std::vector<int>& e = cluster.extents();
  std::array<int, 3> shape = {1, 1, 1};
  if (e.empty()) return shape;
  const auto written = [&] { return fmt::format("attrs.cluster = {{{}}}", fmt::join(e, ", ")); };
  if (e.size() > 3 || std::any_of(e.begin(), e.end(), [](int x) { return x < 1; }))
    throw Error(fmt::format("kernel {}: {}; a cluster has 1 to 3 extents, each at least 1", name, written()));
  std::copy(e.begin(), e.end(), shape.begin());
  // The portable cluster size, the same on every target that has clusters (the trace does not know
  // the target; the verifier rejects clusters before sm_90a).
  const int most = ir::target_limits(ir::Arch::Sm90a).max_cluster_blocks;
  if (shape[0] * shape[1] * shape[2] > most)
    throw Error(fmt::format("kernel {}: {} makes clusters of {} blocks; a cluster has at most {}", name, written(),
                            shape[0] * shape[1] * shape[2], most));
  return shape;
}

// setmaxnreg's increases take registers only from what the block's decreases released (PTX ISA
// 9.7.19.5, setmaxnreg): more waits forever on the GPU, which the simulator, holding no register
// file, cannot show. An increase below the warpgroup's count, or a decrease above it, is undefined.
// Each warpgroup holds what its last setmaxnreg asked (in the order traced), the others their
// entry count.
void check_register_requests(const Builder& b, int threads, const std::string& name) {
  if (b.register_requests.empty()) return;
  const int warpgroups = threads / 128, entry = SetmaxnregInstructions::registers_at_entry(threads);
  std::vector<int> held(size_t(warpgroups), entry);
  std::vector<bool> asked(size_t(warpgroups), false);
  for (const Builder::RegisterRequest& r : b.register_requests)
    for (int w = r.group.begin / 128; w < std::min(warpgroups, (r.group.begin + r.group.count) / 128); ++w) {
      const int before = held[size_t(w)];
      if (r.increase ? r.registers < before : r.registers > before)
        throw Error(r.loc,
                    fmt::format("kernel {}: setmaxnreg.{}({}) in warpgroup {}, which holds {} registers per thread "
                                "there ({}): {} cannot ask {} registers than the warpgroup holds (the GPU's "
                                "behaviour is undefined); call setmaxnreg.{}",
                                name, r.increase ? "increase" : "decrease", r.registers, w, before,
                                asked[size_t(w)] ? "after its earlier setmaxnreg"
                                                 : fmt::format("{} threads share 65536", threads),
                                r.increase ? "an increase" : "a decrease", r.increase ? "fewer" : "more",
                                r.increase ? "decrease" : "increase"));
      held[size_t(w)] = r.registers;
      asked[size_t(w)] = true;
    }
  const auto increase = std::find_if(b.register_requests.begin(), b.register_requests.end(),
                                     [](const Builder::RegisterRequest& r) { return r.increase; });
  if (increase == b.register_requests.end()) return;
  int total = 0;
  for (int h : held) total += h;
  if (total <= entry * warpgroups) return;
  throw Error(increase->loc,
              fmt::format("kernel {}: setmaxnreg.increase({}): the block's {} warpgroups start with {} registers per "
                          "thread ({} threads share 65536), {} in all, and after every setmaxnreg would hold {} ({}); "
                          "an increase takes only registers that decreases released, so on the GPU it would wait "
                          "forever: lower the increases or the decreases' counts",
                          name, increase->registers, warpgroups, entry, threads, entry * warpgroups, total,
                          fmt::join(held, " + ")));
}

// attrs.resident_blocks: as many blocks as a multiprocessor holds on every target, by their
// threads; and none beside setmaxnreg, whose register counts assume one block a multiprocessor.
void check_resident_blocks(const Builder& b, const Attrs& attrs, const std::string& name) {
  const int resident = attrs.resident_blocks;
  if (resident == 0) return;
  const ir::TargetLimits& limits = ir::target_limits(ir::Arch::Sm80);
  const int threads = attrs.warps * 32;
  const int most = std::min(limits.max_blocks_per_sm, limits.max_threads_per_sm / threads);
  if (resident < 1 || resident > most)
    throw Error(attrs.resident_blocks.loc(),
                fmt::format("kernel {}: attrs.resident_blocks is {}; a multiprocessor holds 1 to {} blocks of {} "
                            "threads ({} threads and {} blocks at most)",
                            name, resident, most, threads, limits.max_threads_per_sm, limits.max_blocks_per_sm));
  if (!b.register_requests.empty() && resident > 1)
    throw Error(attrs.resident_blocks.loc(),
                fmt::format("kernel {}: attrs.resident_blocks is {}, but setmaxnreg at {} moves registers between "
                            "the warpgroups of one block a multiprocessor; leave resident_blocks unset or at 1",
                            name, resident, b.register_requests.front().loc.str()));
}

}  // namespace

ir::Kernel finish_trace(Builder& b, Attrs& attrs, const std::string& name, std::vector<ir::Var> params) {
  ir::Stmt body = b.close_scope({});
  if (attrs.blocks.dims().empty() || attrs.blocks.dims().size() > 3)
    throw Error(fmt::format("kernel {}: attrs.blocks must be set to 1 to 3 grid extents in the kernel body, got {}",
                            name, attrs.blocks.dims().size()));
  // A block holds as many threads on every target (ir::TargetLimits).
  const int most_warps = ir::target_limits(ir::Arch::Sm80).max_threads_per_block / 32;
  const int warps = attrs.warps;
  if (warps < 1 || warps > most_warps)  // where it was set, if it was
    throw Error(attrs.warps.loc(), fmt::format("kernel {}: attrs.warps must be set to a value in 1..{} in the kernel "
                                               "body, got {}",
                                               name, most_warps, warps));
  check_register_requests(b, attrs.warps * 32, name);
  check_resident_blocks(b, attrs, name);
  auto k = std::make_shared<ir::KernelNode>();
  k->cluster = cluster_shape(attrs.cluster, name);
  if (k->clustered() && b.mbarriers_allocated_without_cluster)
    throw Error(*b.mbarriers_allocated_without_cluster,
                fmt::format("kernel {}: mbarrier.alloc before attrs.cluster is set; the barriers of a kernel with "
                            "clusters are published to the whole cluster (cluster.sync()), so set attrs.cluster first",
                            name));
  k->name = name;
  k->params = std::move(params);
  for (ir::DerivedParam& p : b.scratch_params) k->params.push_back(p.param);
  k->derived_params = std::move(b.scratch_params);
  k->blocks = attrs.blocks.dims();
  k->blocks_loc = attrs.blocks.loc();
  k->requirements = std::move(b.requirements);
  k->warps = attrs.warps;
  k->resident_blocks = attrs.resident_blocks;
  k->resident_blocks_loc = attrs.resident_blocks.loc();
  k->body = std::move(body);
  // The kernel is reported where its body starts.
  const auto& stmts = static_cast<const ir::SeqNode&>(*k->body).stmts;
  for (const ir::Stmt& s : stmts)
    if (s->loc.known()) {
      k->loc = s->loc;
      break;
    }
  return k;
}

}  // namespace tessel::detail
