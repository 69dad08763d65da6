#include "examples.hpp"

namespace tessel::examples {

const std::vector<Example>& all_examples() {
  static const std::vector<Example> list = [] {
    std::vector<Example> l = {vector_add_example(), row_softmax_example(),     wide_row_softmax_example(),
                              layer_norm_example(), dequantize_int4_example(), matmul_simt_example(),
                              broken_sync_example()};
    for (Example& e : ampere_ladder_examples()) l.push_back(std::move(e));
    for (Example& e : hopper_ladder_examples()) l.push_back(std::move(e));
    for (Example& e : blackwell_ladder_examples()) l.push_back(std::move(e));
    return l;
  }();
  return list;
}

const Example& find_example(const std::string& name) {
  std::vector<std::string> names;
  for (const Example& e : all_examples()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw Error(fmt::format("unknown example '{}'; the examples are: {}", name, fmt::join(names, ", ")));
}

}  // namespace tessel::examples
