#include "tessel/layout/layout.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "tessel/error.hpp"

namespace tessel {

Layout Layout::local(std::vector<int> shape) {
  Layout l;
  for (int d = 0; d < int(shape.size()); ++d) {
    if (shape[d] <= 0) throw Error(fmt::format("layout extents must be positive, got {} in dimension {}", shape[d], d));
    l.mode_size_.push_back(shape[d]);
    l.mode_dim_.push_back(d);
    l.local_.push_back({d, shape[d]});
  }
  l.shape_ = std::move(shape);
  l.canonicalize();
  return l;
}

Layout Layout::spatial(std::vector<int> shape) {
  Layout l;
  for (int d = 0; d < int(shape.size()); ++d) {
    l.mode_size_.push_back(shape[d]);
    l.mode_dim_.push_back(d);
    l.spatial_.push_back({d, shape[d]});
  }
  l.shape_ = std::move(shape);
  l.canonicalize();
  return l;
}

Layout Layout::column_spatial(std::vector<int> shape) {
  Layout l = spatial(shape);
  std::reverse(l.spatial_.begin(), l.spatial_.end());
  l.canonicalize();
  return l;
}

Layout Layout::replicated(int rank, int count) {
  Layout l;
  l.shape_.assign(rank, 1);
  if (count > 1) l.spatial_.push_back({-1, count});
  return l;
}

Layout Layout::distributed(const std::vector<int>& shape, int threads, int elem_bytes) {
  return distributed_runs(shape, threads, std::max(1, 16 / elem_bytes));
}

Layout Layout::distributed_runs(const std::vector<int>& shape, int threads, int run) {
  const int rank = int(shape.size());
  if (rank == 0) return replicated(0, threads);
  int vec = run;
  while (vec > 1 && shape[rank - 1] % vec != 0) vec /= 2;
  std::vector<int> per_thread(rank, 1), thread_extent(rank, 1), outer(rank, 1);
  per_thread[rank - 1] = vec;
  int remaining = threads;
  for (int d = rank - 1; d >= 0; --d) {
    const int avail = shape[d] / per_thread[d];
    thread_extent[d] = std::gcd(avail, remaining);
    remaining /= thread_extent[d];
    outer[d] = avail / thread_extent[d];
  }
  return replicated(rank, remaining) * local(outer) * spatial(thread_extent) * local(per_thread);
}

Layout Layout::operator*(const Layout& inner) const {
  if (rank() != inner.rank())
    throw Error(fmt::format("cannot compose layouts of rank {} and {}", rank(), inner.rank()));
  Layout out;
  std::vector<int> outer_map(mode_size_.size()), inner_map(inner.mode_size_.size());
  for (int d = 0; d < rank(); ++d) {
    out.shape_.push_back(shape_[d] * inner.shape_[d]);
    for (int m = 0; m < int(mode_size_.size()); ++m)
      if (mode_dim_[m] == d) {
        outer_map[m] = int(out.mode_size_.size());
        out.mode_size_.push_back(mode_size_[m]);
        out.mode_dim_.push_back(d);
      }
    for (int m = 0; m < int(inner.mode_size_.size()); ++m)
      if (inner.mode_dim_[m] == d) {
        inner_map[m] = int(out.mode_size_.size());
        out.mode_size_.push_back(inner.mode_size_[m]);
        out.mode_dim_.push_back(d);
      }
  }
  auto remap = [](const std::vector<Digit>& digits, const std::vector<int>& map, std::vector<Digit>& into) {
    for (const Digit& g : digits) into.push_back({g.mode < 0 ? -1 : map[g.mode], g.size});
  };
  remap(spatial_, outer_map, out.spatial_);
  remap(inner.spatial_, inner_map, out.spatial_);
  remap(local_, outer_map, out.local_);
  remap(inner.local_, inner_map, out.local_);
  out.canonicalize();
  return out;
}

int Layout::split_mode(int m, int inner) {
  const int outer = mode_size_[m] / inner;
  mode_size_[m] = outer;
  mode_size_.insert(mode_size_.begin() + m + 1, inner);
  mode_dim_.insert(mode_dim_.begin() + m + 1, mode_dim_[m]);
  for (auto* list : {&spatial_, &local_}) {
    for (Digit& g : *list)
      if (g.mode > m) ++g.mode;
    for (size_t i = 0; i < list->size(); ++i)
      if ((*list)[i].mode == m) {
        (*list)[i].size = outer;
        list->insert(list->begin() + long(i) + 1, Digit{m + 1, inner});
        break;
      }
  }
  return m + 1;
}

Layout Layout::divide(const Layout& inner) const {
  auto fail = [&](const std::string& why) {
    return Error(fmt::format("cannot divide {} by {}: {}", str(), inner.str(), why));
  };
  if (rank() != inner.rank()) throw fail("the ranks differ");
  Layout w = *this;
  // Each inner mode, matched (splitting w's modes) to the innermost unmatched mode of its dimension.
  std::vector<int> match(inner.mode_size_.size(), -1);
  for (int d = 0; d < rank(); ++d) {
    if (shape_[d] % inner.shape_[d] != 0)
      throw fail(fmt::format("extent {} of dimension {} is not a multiple of {}", shape_[d], d, inner.shape_[d]));
    int next = -1;  // w's innermost unmatched mode of dimension d
    for (int m = int(w.mode_size_.size()) - 1; m >= 0; --m)
      if (w.mode_dim_[m] == d) {
        next = m;
        break;
      }
    for (int im = int(inner.mode_size_.size()) - 1; im >= 0; --im) {
      if (inner.mode_dim_[im] != d) continue;
      const int b = inner.mode_size_[im];
      if (next < 0 || w.mode_dim_[next] != d || w.mode_size_[next] % b != 0)
        throw fail(fmt::format("dimension {} has no inner mode of size {}", d, b));
      if (w.mode_size_[next] > b) {
        const int split = w.split_mode(next, b);
        for (int& x : match)
          if (x >= split) ++x;
        next = split;
      }
      match[im] = next;
      --next;
    }
  }
  // The inner digits must be the least significant ones of w, in order.
  auto strip = [&](std::vector<Digit>& digits, const std::vector<Digit>& want, const char* what) {
    for (int i = int(want.size()) - 1; i >= 0; --i) {
      if (digits.empty()) throw fail(fmt::format("too few {} digits", what));
      Digit& g = digits.back();
      const Digit& h = want[i];
      if (h.mode < 0 && g.mode < 0 && g.size % h.size == 0) {
        g.size /= h.size;
        if (g.size == 1) digits.pop_back();
        continue;
      }
      if (h.mode < 0 || g.mode != match[h.mode]) throw fail(fmt::format("the {} digits are not the inner ones", what));
      digits.pop_back();
    }
  };
  strip(w.spatial_, inner.spatial_, "thread");
  strip(w.local_, inner.local_, "register");
  for (int x : match) w.mode_size_[x] = 1;  // matched modes leave; canonicalize drops them
  for (int d = 0; d < rank(); ++d) w.shape_[d] /= inner.shape_[d];
  w.canonicalize();
  return w;
}

Layout Layout::permute(const std::vector<int>& perm) const {
  std::vector<int> seen(perm.size(), 0);
  for (int p : perm)
    if (perm.size() != size_t(rank()) || p < 0 || p >= rank() || seen[p]++)
      throw Error(fmt::format("permute: [{}] is not a permutation of the {} dimensions of {}", fmt::join(perm, ", "),
                              rank(), str()));
  Layout out;
  std::vector<int> map(mode_size_.size());
  for (int i = 0; i < rank(); ++i) {
    out.shape_.push_back(shape_[perm[i]]);
    for (int m = 0; m < int(mode_size_.size()); ++m)
      if (mode_dim_[m] == perm[i]) {
        map[m] = int(out.mode_size_.size());
        out.mode_size_.push_back(mode_size_[m]);
        out.mode_dim_.push_back(i);
      }
  }
  for (const Digit& g : spatial_) out.spatial_.push_back({g.mode < 0 ? -1 : map[g.mode], g.size});
  for (const Digit& g : local_) out.local_.push_back({g.mode < 0 ? -1 : map[g.mode], g.size});
  out.canonicalize();
  return out;
}

Layout Layout::squeeze(int dim) const {
  if (dim < 0 || dim >= rank() || shape_[dim] != 1)
    throw Error(fmt::format("squeeze: dimension {} of {} does not have extent 1", dim, str()));
  Layout out = *this;
  out.shape_.erase(out.shape_.begin() + dim);
  for (int& d : out.mode_dim_)
    if (d > dim) --d;
  return out;
}

Layout Layout::unsqueeze(int dim) const {
  if (dim < 0 || dim > rank()) throw Error(fmt::format("unsqueeze: no position {} in {}", dim, str()));
  Layout out = *this;
  out.shape_.insert(out.shape_.begin() + dim, 1);
  for (int& d : out.mode_dim_)
    if (d >= dim) ++d;
  return out;
}

Layout Layout::reshape(const std::vector<int>& shape) const {
  auto fail = [&](const std::string& why) {
    return Error(fmt::format("cannot reshape {} to [{}]: {}", str(), fmt::join(shape, ", "), why));
  };
  int64_t count = 1;
  for (int e : shape) {
    if (e <= 0) throw fail("extents must be positive");
    count *= e;
  }
  if (count != num_elements()) throw fail(fmt::format("{} elements cannot become {}", num_elements(), count));
  // Flatten: one dimension whose modes are every mode, dimension by dimension, outer to inner
  // (modes of a dimension are already in that order), so each keeps its row-major stride.
  Layout w;
  std::vector<int> order(mode_size_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return mode_dim_[x] < mode_dim_[y]; });
  std::vector<int> position(order.size());
  for (int i = 0; i < int(order.size()); ++i) {
    position[order[i]] = i;
    w.mode_size_.push_back(mode_size_[order[i]]);
    w.mode_dim_.push_back(0);
  }
  for (const Digit& g : spatial_) w.spatial_.push_back({g.mode < 0 ? -1 : position[g.mode], g.size});
  for (const Digit& g : local_) w.local_.push_back({g.mode < 0 ? -1 : position[g.mode], g.size});
  // Deal the modes out to the new dimensions from the innermost, cutting one where a dimension
  // ends inside it.
  int m = int(w.mode_size_.size()) - 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    for (int need = shape[d]; need > 1;) {
      const int size = w.mode_size_[m];
      if (size <= need) {
        if (need % size != 0) throw fail(fmt::format("a mode of size {} straddles dimension {}", size, d));
        w.mode_dim_[m--] = d;
        need /= size;
      } else {
        if (size % need != 0) throw fail(fmt::format("a mode of size {} straddles dimension {}", size, d));
        w.mode_dim_[w.split_mode(m, need)] = d;
        need = 1;
      }
    }
  }
  w.shape_ = shape;
  w.canonicalize();
  return w;
}

Layout Layout::slice(const std::vector<int>& offsets, const std::vector<int>& shape) const {
  auto fail = [&](const std::string& why) {
    return Error(fmt::format("cannot slice [{}] at [{}] out of {}: {}", fmt::join(shape, ", "),
                             fmt::join(offsets, ", "), str(), why));
  };
  if (int(offsets.size()) != rank() || int(shape.size()) != rank())
    throw fail(fmt::format("the layout has rank {}", rank()));
  Layout w = *this;
  auto is_spatial = [&](int m) {
    return std::any_of(spatial_.begin(), spatial_.end(), [&](const Digit& g) { return g.mode == m; });
  };
  for (int d = 0; d < rank(); ++d) {
    if (shape[d] <= 0 || offsets[d] < 0 || offsets[d] + shape[d] > shape_[d])
      throw fail(fmt::format("dimension {} has extent {}", d, shape_[d]));
    std::vector<int> modes;  // innermost first
    for (int m = int(mode_size_.size()) - 1; m >= 0; --m)
      if (mode_dim_[m] == d) modes.push_back(m);
    // The innermost modes lie whole inside the slice; then one mode may be cut to the slice's range
    // of it (any range of a register mode; a whole share of a thread mode), and the modes outside
    // are fixed by the offset.
    size_t i = 0;
    int inner = 1;
    while (i < modes.size() && shape[d] % (inner * mode_size_[modes[i]]) == 0) inner *= mode_size_[modes[i++]];
    if (offsets[d] % inner != 0)
      throw fail(
          fmt::format("the offset {} of dimension {} is not a multiple of {}, the extent of its modes that the "
                      "slice holds whole",
                      offsets[d], d, inner));
    if (const int need = shape[d] / inner; need > 1) {
      const int m = modes[i++], start = offsets[d] / inner % mode_size_[m];
      if ((is_spatial(m) && mode_size_[m] % need != 0) || start + need > mode_size_[m])
        throw fail(fmt::format("[{}, {}) of dimension {} straddles a mode of size {}", offsets[d],
                               offsets[d] + shape[d], d, mode_size_[m]));
      if (is_spatial(m)) throw fail(fmt::format("dimension {} is spread over threads outside the slice", d));
      w.mode_size_[m] = need;
    }
    for (; i < modes.size(); ++i) {
      if (is_spatial(modes[i])) throw fail(fmt::format("dimension {} is spread over threads outside the slice", d));
      w.mode_size_[modes[i]] = 1;
    }
  }
  for (Digit& g : w.local_)
    if (g.mode >= 0) g.size = w.mode_size_[g.mode];
  w.shape_ = shape;
  w.canonicalize();
  return w;
}

std::vector<int> Layout::slice_registers(const std::vector<int>& offsets, const Layout& part) const {
  std::vector<int> registers(part.local_size());
  for (int l = 0; l < part.local_size(); ++l) {
    std::vector<int> c = part.coords(0, l);
    for (int d = 0; d < rank(); ++d) c[d] += offsets[d];
    TESSEL_CHECK(holds(0, c, &registers[l]), "{} is not a slice of {}", part.str(), str());
  }
  return registers;
}

void Layout::canonicalize() {
  // Drop size-1 modes and digits.
  std::vector<int> keep_map(mode_size_.size(), -1);
  std::vector<int> sizes, dims;
  for (int m = 0; m < int(mode_size_.size()); ++m)
    if (mode_size_[m] > 1) {
      keep_map[m] = int(sizes.size());
      sizes.push_back(mode_size_[m]);
      dims.push_back(mode_dim_[m]);
    }
  auto prune = [&](std::vector<Digit>& digits) {
    std::vector<Digit> out;
    for (const Digit& g : digits) {
      if (g.size <= 1) continue;
      out.push_back({g.mode < 0 ? -1 : keep_map[g.mode], g.size});
    }
    digits = std::move(out);
  };
  prune(spatial_);
  prune(local_);
  mode_size_ = std::move(sizes);
  mode_dim_ = std::move(dims);

  // Merge neighbouring modes of one dimension that are neighbours in one digit list.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto* digits : {&spatial_, &local_}) {
      for (size_t i = 0; i + 1 < digits->size() && !changed; ++i) {
        Digit& a = (*digits)[i];
        const Digit& b = (*digits)[i + 1];
        const bool both_replicas = a.mode < 0 && b.mode < 0;
        const bool adjacent_modes = a.mode >= 0 && b.mode == a.mode + 1 && mode_dim_[a.mode] == mode_dim_[b.mode];
        if (!both_replicas && !adjacent_modes) continue;
        a.size *= b.size;
        if (adjacent_modes) {
          const int gone = b.mode;
          mode_size_[a.mode] *= mode_size_[gone];
          mode_size_.erase(mode_size_.begin() + gone);
          mode_dim_.erase(mode_dim_.begin() + gone);
          digits->erase(digits->begin() + long(i) + 1);
          for (auto* list : {&spatial_, &local_})
            for (Digit& g : *list)
              if (g.mode > gone) --g.mode;
        } else {
          digits->erase(digits->begin() + long(i) + 1);
        }
        changed = true;
      }
    }
  }
}

int Layout::num_threads() const {
  int n = 1;
  for (const Digit& g : spatial_) n *= g.size;
  return n;
}

int Layout::local_size() const {
  int n = 1;
  for (const Digit& g : local_) n *= g.size;
  return n;
}

int Layout::num_elements() const {
  int n = 1;
  for (int s : shape_) n *= s;
  return n;
}

int Layout::mode_stride_in_dim(int mode) const {
  int stride = 1;
  for (int m = mode + 1; m < int(mode_size_.size()); ++m)
    if (mode_dim_[m] == mode_dim_[mode]) stride *= mode_size_[m];
  return stride;
}

std::vector<int> Layout::coords(int thread, int local) const {
  std::vector<int> digit(mode_size_.size(), 0);
  auto split = [&](const std::vector<Digit>& digits, int index) {
    for (int i = int(digits.size()) - 1; i >= 0; --i) {
      if (digits[i].mode >= 0) digit[digits[i].mode] = index % digits[i].size;
      index /= digits[i].size;
    }
  };
  split(spatial_, thread);
  split(local_, local);
  std::vector<int> c(shape_.size(), 0);
  for (int m = 0; m < int(mode_size_.size()); ++m) c[mode_dim_[m]] += digit[m] * mode_stride_in_dim(m);
  return c;
}

bool Layout::holds(int thread, const std::vector<int>& c, int* local) const {
  std::vector<int> digit(mode_size_.size(), 0);
  for (int m = 0; m < int(mode_size_.size()); ++m) digit[m] = c[mode_dim_[m]] / mode_stride_in_dim(m) % mode_size_[m];
  for (int i = int(spatial_.size()) - 1; i >= 0; --i) {
    if (spatial_[i].mode >= 0 && thread % spatial_[i].size != digit[spatial_[i].mode]) return false;
    thread /= spatial_[i].size;
  }
  int l = 0;
  for (const Digit& g : local_) l = l * g.size + digit[g.mode];
  *local = l;
  return true;
}

Layout Layout::reduced(int dim) const {
  TESSEL_CHECK(dim >= 0 && dim < rank(), "reduce dim {} of rank {}", dim, rank());
  Layout out = *this;
  out.shape_[dim] = 1;
  for (Digit& g : out.spatial_)
    if (g.mode >= 0 && mode_dim_[g.mode] == dim) g.mode = -1;
  for (Digit& g : out.local_)
    if (g.mode >= 0 && mode_dim_[g.mode] == dim) g.size = 1;
  for (int m = 0; m < int(out.mode_size_.size()); ++m)
    if (mode_dim_[m] == dim) out.mode_size_[m] = 1;
  out.canonicalize();
  return out;
}

std::vector<Layout::ThreadSpan> Layout::thread_spans(int dim) const {
  std::vector<ThreadSpan> spans;
  int stride = 1;
  for (int i = int(spatial_.size()) - 1; i >= 0; --i) {
    if (spatial_[i].mode >= 0 && mode_dim_[spatial_[i].mode] == dim) spans.push_back({stride, spatial_[i].size});
    stride *= spatial_[i].size;
  }
  return spans;
}

bool Layout::split_at_warps(int dim, WarpSplit* split) const {
  constexpr int kWarp = 32;
  *split = {};
  for (const ThreadSpan& s : thread_spans(dim)) {
    if (s.stride >= kWarp) {
      split->warps.push_back(s);
    } else if (s.stride * s.size <= kWarp) {
      // The span's threads lie in one warp for every value of the other digits only when its block
      // of stride × size threads divides the warp (24 threads from thread 24 cross into warp 1).
      if (kWarp % (s.stride * s.size) != 0) return false;
      split->lanes.push_back(s);
    } else {
      const int lanes = kWarp / s.stride;
      if (kWarp % s.stride != 0 || s.size % lanes != 0) return false;
      split->lanes.push_back({s.stride, lanes});
      split->warps.push_back({kWarp, s.size / lanes});
    }
  }
  return true;
}

bool Layout::scan_order(int dim, ScanOrder* order) const {
  WarpSplit split;
  if (!split_at_warps(dim, &split) || split.lanes.size() > 1) return false;
  *order = {};
  if (!split.lanes.empty()) order->lanes = split.lanes.front();
  order->warps = split.warps;
  int warps = 1;
  for (const ThreadSpan& s : split.warps) warps *= s.size;
  const int runs = order->lanes.size * warps;
  if (shape_[size_t(dim)] % runs != 0) return false;
  order->run = shape_[size_t(dim)] / runs;
  for (int t = 0; t < num_threads(); ++t) {
    int warp = 0, step = 1;
    for (const ThreadSpan& s : split.warps) {
      warp += t / s.stride % s.size * step;
      step *= s.size;
    }
    const int position = warp * order->lanes.size + t / order->lanes.stride % order->lanes.size;
    for (int l = 0; l < local_size(); ++l)
      if (coords(t, l)[size_t(dim)] / order->run != position) return false;
  }
  return true;
}

std::vector<Layout::ThreadSpan> Layout::replica_spans() const {
  std::vector<ThreadSpan> spans;
  int stride = 1;
  for (int i = int(spatial_.size()) - 1; i >= 0; --i) {
    if (spatial_[i].mode < 0) spans.push_back({stride, spatial_[i].size});
    stride *= spatial_[i].size;
  }
  return spans;
}

int Layout::contiguous_run() const {
  if (local_.empty() || local_.back().mode < 0) return 1;
  const int m = local_.back().mode;
  return mode_dim_[m] == rank() - 1 && mode_stride_in_dim(m) == 1 ? local_.back().size : 1;
}

std::vector<std::string> Layout::coord_exprs(const std::string& thread, const std::string& local) const {
  std::vector<std::string> terms(shape_.size());
  auto add = [&](const std::vector<Digit>& digits, const std::string& index) {
    int stride = 1;
    for (int i = int(digits.size()) - 1; i >= 0; --i) {
      const Digit& g = digits[i];
      if (g.mode >= 0) {
        std::string digit = stride == 1 ? index : fmt::format("{} / {}", index, stride);
        if (i > 0) digit = fmt::format("({}) % {}", digit, g.size);
        const int mstride = mode_stride_in_dim(g.mode);
        std::string term = mstride == 1 ? fmt::format("({})", digit) : fmt::format("({}) * {}", digit, mstride);
        std::string& t = terms[mode_dim_[g.mode]];
        t = t.empty() ? term : t + " + " + term;
      }
      stride *= g.size;
    }
  };
  add(spatial_, thread);
  add(local_, local);
  for (std::string& t : terms)
    if (t.empty()) t = "0";
  return terms;
}

std::string Layout::str() const {
  auto mode_name = [&](int m) {
    int k = 0;
    for (int j = 0; j < m; ++j) k += mode_dim_[j] == mode_dim_[m];
    return fmt::format("d{}.{}", mode_dim_[m], k);
  };
  auto digits = [&](const std::vector<Digit>& list) {
    std::vector<std::string> parts;
    for (const Digit& g : list) parts.push_back(g.mode < 0 ? fmt::format("rep{}", g.size) : mode_name(g.mode));
    return parts.empty() ? std::string("-") : fmt::format("{}", fmt::join(parts, ","));
  };
  std::vector<std::string> dims;
  for (int d = 0; d < rank(); ++d) {
    std::vector<int> sizes;
    for (int m = 0; m < int(mode_size_.size()); ++m)
      if (mode_dim_[m] == d) sizes.push_back(mode_size_[m]);
    dims.push_back(sizes.empty() ? fmt::format("d{}=1", d) : fmt::format("d{}={}", d, fmt::join(sizes, "x")));
  }
  return fmt::format("layout[{}]({}; threads={}; local={})", fmt::join(shape_, ","), fmt::join(dims, " "),
                     digits(spatial_), digits(local_));
}

}  // namespace tessel
