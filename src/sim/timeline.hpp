// A Chrome/Perfetto trace of a simulated run (TESSEL_TRACE=file.json, or Options::trace_file):
// over simulated time, one scheduler turn to a microsecond, each warp's thread group and its
// waits (what it waits for, at the user's line), each block's mbarrier phases as they complete,
// and when each asynchronous agent of a block (the cp.async unit, the TMA engine, the wgmma unit,
// the tensor core, cluster launch control) has work in flight. It observes the blocks after every
// turn, so a warp's wait is seen from the turn it blocked to the turn it was released.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::sim {

class Cta;
class Warp;

class Timeline {
 public:
  Timeline(std::string path, const ir::KernelNode& k);
  // One scheduler turn has passed.
  void turn() { ++now_; }
  // Records what changed in `ctas` since the last observation.
  void observe(const std::vector<std::unique_ptr<Cta>>& ctas);
  // Starts or ends the user's region `name` (trace_region) on warp `w`'s track of regions.
  void region(const Warp& w, const std::string& name, bool begin);
  // Ends the spans of the blocks in `ctas`, which are ending.
  void end_blocks(const std::vector<std::unique_ptr<Cta>>& ctas);
  // Writes the trace file (also when the run ended in an error: the trace shows how it got there).
  void write() const;

 private:
  struct Event {
    char phase;  // 'X' a span, 'i' an instant, 'M' a track's name
    int process, track;
    int64_t start, duration;
    std::string name, detail;
  };
  // A track's span open since `start`, and the event it becomes.
  struct Open {
    std::string name, detail;
    int64_t start;
  };
  using Track = std::pair<int, int>;  // (block, track)

  void begin(Track t, std::string name, std::string detail);
  void end(Track t);
  void name_block(const Cta& cta, int process);
  int process_of(const Cta& cta);
  void close_region(Track t, std::vector<Open>& open);

  std::string path_;
  std::string kernel_;
  int64_t now_ = 0;
  std::vector<Event> events_;
  std::map<Track, Open> open_;
  std::map<Track, std::vector<Open>> regions_;  // the user's regions open on each warp, innermost last
  std::map<const Cta*, int> processes_;         // each running block's process id
  int next_process_ = 1;
  std::map<std::pair<int, int64_t>, int64_t> phases_;  // (block, mbarrier byte) -> phases seen complete
};

}  // namespace tessel::sim
