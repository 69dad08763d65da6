#include "tessel/lang/space.hpp"

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
    if (c == ',') flush();
    else cur += c;
  }
  flush();
  return out;
}

}  // namespace detail

Space Space::operator*(const Space& other) const {
  std::set<std::string> mine;
  for (const Setting& s : candidates_.front()) mine.insert(s.name);
  for (const Setting& s : other.candidates_.front())
    if (mine.count(s.name))
      throw Error(fmt::format("hyperparameter '{}' is tuned twice in one space; tune each member once", s.name));
  std::vector<Candidate> out;
  for (const Candidate& a : candidates_)
    for (const Candidate& b : other.candidates_) {
      Candidate c = a;
      c.insert(c.end(), b.begin(), b.end());
      out.push_back(std::move(c));
    }
  return Space(std::move(out));
}

std::string Space::describe(const Candidate& c) {
  std::vector<std::string> parts;
  for (const Setting& s : c) parts.push_back(fmt::format("{}={}", s.name, s.value));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace tessel
