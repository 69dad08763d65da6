// The tessel command: the command line (tessel/cli/main.hpp) over the built-in examples.
#include "examples.hpp"
#include "tessel/cli/main.hpp"

int main(int argc, char** argv) { return tessel::cli::run(argc, argv, tessel::examples::registry()); }
