// Running the `tessel` command, or another, from a test: its exit status and its output.
#pragma once

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <string>

namespace tessel::testing {

struct Cli {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command.
inline Cli run_command(const std::string& command) {
  Cli r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 256> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  if (p) {
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

// Runs the tessel command with `environment` ("NAME=value ...") set for it.
inline Cli tessel(const std::string& args, const std::string& environment = "") {
  return run_command(environment + " " + TESSEL_CLI + " " + args);
}

}  // namespace tessel::testing
