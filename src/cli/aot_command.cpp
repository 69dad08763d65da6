// `tessel aot`: kernels exported ahead of time, for chosen sizes and configurations, as one C++
// header of launchers (each embedding its cubin) and the cubins beside it (docs/usage.md,
// "Ahead-of-time export").
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "commands.hpp"

namespace tessel::cli {

namespace {

struct AotArgs {
  std::vector<std::string> kernels;
  std::string arch, configuration, output;
};

// "matmul_simt:256,256,64" -> the kernel's name and its sizes (none: its defaults).
std::pair<std::string, Sizes> kernel_and_sizes(const std::string& text) {
  const size_t colon = text.find(':');
  Sizes sizes;
  if (colon != std::string::npos) {
    std::string rest = text.substr(colon + 1);
    for (size_t at = 0; at <= rest.size();) {
      const size_t comma = std::min(rest.find(',', at), rest.size());
      const std::string size = rest.substr(at, comma - at);
      try {
        size_t used = 0;
        sizes.push_back(std::stoll(size, &used));
        if (used != size.size()) throw std::invalid_argument(size);
      } catch (const std::exception&) {
        throw Error(
            fmt::format("aot: {}: \"{}\" is not a size; write a kernel as name or name:size,size,...", text, size));
      }
      at = comma + 1;
    }
  }
  return {text.substr(0, colon), sizes};
}

void write_file(const std::filesystem::path& path, const char* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, std::streamsize(bytes));
  if (!out) throw Error(fmt::format("aot: cannot write {}", path.string()));
}

int run(const AotArgs& args, const Registry& kernels) {
  std::vector<aot::ExportedKernel> exported;
  const std::filesystem::path header(args.output);
  // A header holds one launcher class per kernel, named after it, and the cubins beside it are named
  // after the header and the kernel.
  std::map<std::string, std::string> given_as;
  for (const std::string& text : args.kernels) {
    const auto [at, fresh] = given_as.emplace(kernel_and_sizes(text).first, text);
    if (!fresh)
      throw Error(
          fmt::format("aot: {} is exported twice ({} and {}); a header holds one launcher per kernel, named "
                      "after it: export the other into a header of its own",
                      at->first, at->second, text));
  }
  if (header.has_parent_path()) std::filesystem::create_directories(header.parent_path());
  for (const std::string& text : args.kernels) {
    const auto [name, given] = kernel_and_sizes(text);
    const KernelEntry& e = kernels.find(name);
    const std::string arch = e.target_for(args.arch);
    exported.push_back(e.exported(e.sizes_for(given), arch, args.configuration));
    const aot::ExportedKernel& k = exported.back();
    // Named after the header too, so that two headers exported into one folder keep their own.
    const std::filesystem::path cubin =
        header.parent_path() / fmt::format("{}.{}.cubin", header.stem().string(), k.name);
    write_file(cubin, k.cubin.data(), k.cubin.size());
    fmt::print("{} for {} ({}): {} byte cubin, wrote {}\n", k.name, k.arch,
               k.compiled_for.empty() ? "any arguments" : k.compiled_for, k.cubin.size(), cubin.string());
  }
  const std::string text = aot::launcher_header(exported);
  write_file(header, text.data(), text.size());
  fmt::print("wrote {}: {} launcher{}; include it and link libcuda\n", header.string(), exported.size(),
             exported.size() == 1 ? "" : "s");
  return 0;
}

}  // namespace

Command add_aot_command(CLI::App& app, const Registry& kernels) {
  auto args = std::make_shared<AotArgs>();
  CLI::App* sub = app.add_subcommand(
      "aot", "export kernels ahead of time: one C++ header of launchers that need only libcuda, and the cubins");
  sub->add_option("kernels", args->kernels, "kernels (see `list`), each as name or name:size,size,...")->required();
  sub->add_option("--arch", args->arch, "sm_80, sm_90a or sm_100a (default: sm_90a, or the kernel's only target)");
  sub->add_option("--config", args->configuration,
                  "hyperparameters, as \"block_n=128, stages=3\" (default: the tuning database's choice for the "
                  "sizes, else the first candidate)");
  sub->add_option("--output", args->output, "the header to write; the cubins go beside it")->required();
  return {sub, [args, &kernels] { return run(*args, kernels); }};
}

}  // namespace tessel::cli
