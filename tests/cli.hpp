// Running the `tessel` command from a test: its exit status and its output.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace tessel::testing {

struct Cli {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs the tessel command with `environment` ("NAME=value ...") set for it.
inline Cli tessel(const std::string& args, const std::string& environment = "") {
  Cli r;
  FILE* p = popen((environment + " " + TESSEL_CLI + " " + args + " 2>&1").c_str(), "r");
  std::array<char, 256> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  if (p) {
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

}  // namespace tessel::testing
