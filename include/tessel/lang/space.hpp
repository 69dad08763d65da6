// Hyperparameter spaces: `tune(label, &S::member, {values})` for one member,
// `tune(label, {&S::a, &S::b}, {{a0, b0}, {a1, b1}})` for members tuned jointly, and `*` for
// the Cartesian product (the seeds' stacked @tilus.autotune decorators). Members are identified
// by member pointers; the label is only for display.
#pragma once

#include <functional>
#include <initializer_list>
#include <source_location>
#include <string>
#include <vector>

#include "tessel/error.hpp"

namespace tessel {

class Space {
 public:
  // One assignment of values to members.
  struct Setting {
    std::string name;
    int value;
    std::function<void(void*)> apply;  // sets the member on a script object
  };
  using Candidate = std::vector<Setting>;
  // A hyperparameter that tuning leaves alone (opt_in()): every candidate keeps the script's own
  // value, and only a configuration that names it sets it, to one of `values`.
  struct OptIn {
    std::string name;
    std::vector<int> values;
    std::function<void(void*, int)> apply;
  };

  Space() : candidates_{Candidate{}} {}
  explicit Space(std::vector<Candidate> c, std::vector<OptIn> opt_ins = {})
      : candidates_(std::move(c)), opt_ins_(std::move(opt_ins)) {}

  const std::vector<Candidate>& candidates() const& { return candidates_; }
  // A temporary space's candidates by value, so that `for (auto& c : S::space().candidates())`
  // does not read a space that is gone.
  std::vector<Candidate> candidates() && { return std::move(candidates_); }
  size_t size() const { return candidates_.size(); }
  Space operator*(const Space& other) const;

  static std::string describe(const Candidate& c);  // "block_m=128, block_n=64"

  const std::vector<OptIn>& opt_ins() const& { return opt_ins_; }
  // A temporary space's opt-ins by value, as its candidates.
  std::vector<OptIn> opt_ins() && { return std::move(opt_ins_); }

  // The candidates with the values `configuration` gives, in describe()'s form ("block_n=128,
  // stages=3"); naming every hyperparameter leaves one. An opt-in named there is set on each of
  // them. Errors for `kernel` name a hyperparameter the space does not have, and a value no
  // candidate (or opt-in) has with the values it lists.
  Space configured(const std::string& configuration, const std::string& kernel) const;

  // The candidates for which `keep` holds on a script with the candidate's values set, e.g.
  //   (tune(...) * tune(...)).where<Matmul>([](const Matmul& s) { return s.block_m >= s.block_n; })
  // Constraints drop combinations before anything is traced or compiled.
  template <class S> Space where(const std::function<bool(const S&)>& keep,
                                 std::source_location loc = std::source_location::current()) const {
    std::vector<Candidate> kept;
    for (const Candidate& c : candidates_) {
      S script;
      for (const Setting& s : c) s.apply(&script);
      if (keep(script)) kept.push_back(c);
    }
    if (kept.empty())
      throw Error(SourceLoc::from(loc), fmt::format("where: the constraint removes every one of the {} candidates of "
                                                    "the space",
                                                    candidates_.size()));
    return Space(std::move(kept), opt_ins_);
  }

 private:
  std::vector<Candidate> candidates_;
  std::vector<OptIn> opt_ins_;
};

namespace detail {
std::vector<std::string> split_label(const std::string& label);
}

template <class S> Space tune(const std::string& label, int S::*member, std::vector<int> values,
                              std::source_location loc = std::source_location::current()) {
  const auto names = detail::split_label(label);
  if (names.size() != 1)
    throw Error(SourceLoc::from(loc), fmt::format("tune(\"{}\"): the label names {} hyperparameters but one member "
                                                  "pointer is given",
                                                  label, names.size()));
  if (values.empty()) throw Error(SourceLoc::from(loc), fmt::format("tune(\"{}\"): no values given", label));
  std::vector<Space::Candidate> out;
  for (int v : values)
    out.push_back({Space::Setting{names[0], v, [member, v](void* s) { static_cast<S*>(s)->*member = v; }}});
  return Space(std::move(out));
}

// A hyperparameter that tuning never changes and a configuration may set ("early_weights=1"), for
// forms that are right only where the caller knows more than the tuner can (docs/tuning.md,
// "Opt-in hyperparameters"): `space * opt_in("early_weights", &S::early_weights, {0, 1})`.
template <class S> Space opt_in(const std::string& name, int S::*member, std::vector<int> values,
                                std::source_location loc = std::source_location::current()) {
  if (values.empty()) throw Error(SourceLoc::from(loc), fmt::format("opt_in(\"{}\"): no values given", name));
  return Space({Space::Candidate{}},
               {Space::OptIn{name, std::move(values), [member](void* s, int v) { static_cast<S*>(s)->*member = v; }}});
}

template <class S> Space tune(const std::string& label, std::initializer_list<int S::*> member_list,
                              std::vector<std::vector<int>> values,
                              std::source_location loc = std::source_location::current()) {
  const std::vector<int S::*> members(member_list);
  const auto names = detail::split_label(label);
  const SourceLoc l = SourceLoc::from(loc);
  if (names.size() != members.size())
    throw Error(l, fmt::format("tune(\"{}\"): the label names {} hyperparameters but {} member pointers are given",
                               label, names.size(), members.size()));
  if (values.empty()) throw Error(l, fmt::format("tune(\"{}\"): no values given", label));
  std::vector<Space::Candidate> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() != members.size())
      throw Error(l, fmt::format("tune(\"{}\"): candidate {} has {} values for {} hyperparameters", label, i,
                                 values[i].size(), members.size()));
    Space::Candidate c;
    for (size_t j = 0; j < members.size(); ++j) {
      const int v = values[i][j];
      auto m = members[j];
      c.push_back({names[j], v, [m, v](void* s) { static_cast<S*>(s)->*m = v; }});
    }
    out.push_back(std::move(c));
  }
  return Space(std::move(out));
}

}  // namespace tessel
