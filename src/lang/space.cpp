#include "tessel/lang/space.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tessel {

namespace detail {

std::vector<std::string> split_label(const std::string& label) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    const auto b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : label) {
    if (c == ',')
      flush();
    else
      cur += c;
  }
  flush();
  return out;
}

}  // namespace detail

Space Space::operator*(const Space& other) const {
  std::set<std::string> mine;
  for (const Setting& s : candidates_.front()) mine.insert(s.name);
  for (const OptIn& o : opt_ins_) mine.insert(o.name);
  std::vector<std::string> theirs;
  for (const Setting& s : other.candidates_.front()) theirs.push_back(s.name);
  for (const OptIn& o : other.opt_ins_) theirs.push_back(o.name);
  for (const std::string& name : theirs)
    if (mine.count(name))
      throw Error(fmt::format("hyperparameter '{}' is tuned twice in one space; tune each member once", name));
  std::vector<OptIn> opt_ins = opt_ins_;
  opt_ins.insert(opt_ins.end(), other.opt_ins_.begin(), other.opt_ins_.end());
  std::vector<Candidate> out;
  for (const Candidate& a : candidates_)
    for (const Candidate& b : other.candidates_) {
      Candidate c = a;
      c.insert(c.end(), b.begin(), b.end());
      out.push_back(std::move(c));
    }
  return Space(std::move(out), std::move(opt_ins));
}

std::string Space::describe(const Candidate& c) {
  std::vector<std::string> parts;
  for (const Setting& s : c) parts.push_back(fmt::format("{}={}", s.name, s.value));
  return fmt::format("{}", fmt::join(parts, ", "));
}

Space Space::configured(const std::string& configuration, const std::string& kernel) const {
  std::vector<std::string> names;
  for (const Setting& s : candidates_.front()) names.push_back(s.name);
  std::vector<std::pair<std::string, int>> wanted;
  std::vector<Setting> opted;  // the opt-ins the configuration sets
  for (const std::string& part : detail::split_label(configuration)) {
    const size_t eq = part.find('=');
    std::string name = eq == std::string::npos ? part : part.substr(0, eq);
    name.erase(name.find_last_not_of(' ') + 1);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (name.empty() || used == 0 || value.find_first_not_of(' ', used) != std::string::npos)
      throw Error(
          fmt::format("kernel {}: configuration \"{}\": '{}' is not name=value; write the hyperparameters as "
                      "\"block_n=128, stages=3\"",
                      kernel, configuration, part));
    const auto opt_in = std::find_if(opt_ins_.begin(), opt_ins_.end(), [&](const OptIn& o) { return o.name == name; });
    if (opt_in != opt_ins_.end()) {
      if (std::find(opt_in->values.begin(), opt_in->values.end(), v) == opt_in->values.end())
        throw Error(fmt::format("kernel {}: configuration \"{}\": {} takes {}", kernel, configuration, name,
                                fmt::join(opt_in->values, ", ")));
      if (std::any_of(opted.begin(), opted.end(), [&](const Setting& o) { return o.name == name; }))
        throw Error(fmt::format("kernel {}: configuration \"{}\": '{}' is given twice; give each hyperparameter once",
                                kernel, configuration, name));
      opted.push_back(Setting{name, v, [apply = opt_in->apply, v](void* script) { apply(script, v); }});
      continue;
    }
    if (names.empty() && opt_ins_.empty())
      throw Error(
          fmt::format("kernel {}: configuration \"{}\": the kernel has no hyperparameters to set (its script "
                      "has no static space()); tune '{}' by giving it a space (docs/tuning.md), or build the "
                      "Kernel from a script object whose member holds the value",
                      kernel, configuration, name));
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      for (const OptIn& o : opt_ins_) names.push_back(o.name);
      throw Error(fmt::format("kernel {}: configuration \"{}\": the space has no hyperparameter '{}'; it has {}",
                              kernel, configuration, name, fmt::join(names, ", ")));
    }
    if (std::any_of(wanted.begin(), wanted.end(), [&](const auto& w) { return w.first == name; }))
      throw Error(fmt::format("kernel {}: configuration \"{}\": '{}' is given twice; give each hyperparameter once",
                              kernel, configuration, name));
    wanted.emplace_back(name, v);
  }
  std::vector<Candidate> kept;
  for (const Candidate& c : candidates_) {
    bool matches = true;
    for (const auto& [name, value] : wanted)
      for (const Setting& s : c) matches &= s.name != name || s.value == value;
    if (matches) {
      // An opt-in set by an earlier configuration gives way to this one's.
      Candidate& k = kept.emplace_back();
      for (const Setting& s : c)
        if (std::none_of(opted.begin(), opted.end(), [&](const Setting& o) { return o.name == s.name; }))
          k.push_back(s);
      k.insert(k.end(), opted.begin(), opted.end());
    }
  }
  if (kept.empty()) {
    std::map<std::string, std::set<int>> values;
    for (const Candidate& c : candidates_)
      for (const Setting& s : c) values[s.name].insert(s.value);
    std::vector<std::string> taken;
    for (const auto& [name, value] : wanted)
      taken.push_back(fmt::format("{} takes {}", name, fmt::join(values[name], ", ")));
    throw Error(fmt::format("kernel {}: configuration \"{}\": no candidate of the space has these values ({})", kernel,
                            configuration, fmt::join(taken, "; ")));
  }
  return Space(std::move(kept), opt_ins_);
}

}  // namespace tessel
