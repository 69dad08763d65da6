// write_text_file (tessel/text_file.hpp), through which the library writes its logs, IR dumps and
// timelines: the text as given, and the system's reason where the file cannot be written.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessel/text_file.hpp"

namespace tessel {
namespace {

TEST(TextFile, WritesTheTextAndReplacesWhatWasThere) {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("tessel-text-file-{}.txt", getpid());
  EXPECT_EQ(write_text_file(path.string(), "a first text, longer than the second\n"), "");
  EXPECT_EQ(write_text_file(path.string(), "line 1\nline 2\n"), "");
  std::stringstream read;
  read << std::ifstream(path).rdbuf();
  EXPECT_EQ(read.str(), "line 1\nline 2\n");
  std::filesystem::remove(path);
}

TEST(TextFile, NamesTheReasonAFileCannotBeWritten) {
  EXPECT_EQ(write_text_file("/nonexistent-tessel-dir/x.txt", "text"), "No such file or directory");
}

}  // namespace
}  // namespace tessel
