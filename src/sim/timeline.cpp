#include "timeline.hpp"

#include <nlohmann/json.hpp>

#include "machine.hpp"
#include "tessel/text_file.hpp"
#include "wait_condition.hpp"

namespace tessel::sim {

namespace {

// Track ids within a block: warps by their index, then the mbarriers, then the agents.
constexpr int kMbarrierTrack = 1000;
constexpr int kFirstAgentTrack = 1001;
constexpr int kFirstRegionTrack = 2000;  // the user's regions of warp w: 2000 + w

// A wait's name on the timeline: the instruction that waits.
std::string_view waiting_at(const WaitCondition& c) {
  return std::visit(
      PerCondition{[](const BarrierWait&) { return "sync()"; },
                   [](const CopyGroupWait&) { return "copy_async_wait_group"; },
                   [](const WgmmaGroupWait&) { return "wgmma.wait_group"; },
                   [](const MbarrierPhaseWait&) { return "mbarrier.wait"; },
                   [](const BulkGroupWait&) { return "tma.wait_group"; },
                   [](const TensorMemoryWait&) { return "tcgen05.alloc"; },
                   [](const ClusterBarrierWait& b) { return b.arrival ? "cluster.wait()" : "cluster.sync()"; }},
      c);
}

}  // namespace

Timeline::Timeline(std::string path, const ir::KernelNode& k) : path_(std::move(path)), kernel_(k.name) {}

void Timeline::begin(Track t, std::string name, std::string detail) {
  open_[t] = Open{std::move(name), std::move(detail), now_};
}

void Timeline::end(Track t) {
  const auto it = open_.find(t);
  if (it == open_.end()) return;
  events_.push_back(Event{'X', t.first, t.second, it->second.start, std::max<int64_t>(1, now_ - it->second.start),
                          std::move(it->second.name), std::move(it->second.detail)});
  open_.erase(it);
}

void Timeline::name_block(const Cta& cta, int process) {
  events_.push_back(Event{'M', process, 0, 0, 0, "process_name", "block " + cta.block_name()});
  for (const auto& w : cta.warps) {
    events_.push_back(Event{'M', process, w->id, 0, 0, "thread_name", fmt::format("warp {}", w->id)});
    events_.push_back(
        Event{'M', process, kFirstRegionTrack + w->id, 0, 0, "thread_name", fmt::format("warp {} regions", w->id)});
  }
  events_.push_back(Event{'M', process, kMbarrierTrack, 0, 0, "thread_name", "mbarrier phases"});
  for (size_t a = 0; a < cta.agents.size(); ++a)
    events_.push_back(
        Event{'M', process, kFirstAgentTrack + int(a), 0, 0, "thread_name", std::string(cta.agents[a]->engine())});
}

int Timeline::process_of(const Cta& cta) {
  auto [it, fresh] = processes_.try_emplace(&cta, next_process_);
  if (fresh) {
    ++next_process_;
    name_block(cta, it->second);
  }
  return it->second;
}

void Timeline::region(const Warp& w, const std::string& name, bool begin) {
  const Track t{process_of(w.cta), kFirstRegionTrack + w.id};
  std::vector<Open>& open = regions_[t];
  if (begin)
    open.push_back(Open{name, "trace_region", now_});
  else if (!open.empty())
    close_region(t, open);
}

void Timeline::close_region(Track t, std::vector<Open>& open) {
  events_.push_back(Event{'X', t.first, t.second, open.back().start, std::max<int64_t>(1, now_ - open.back().start),
                          open.back().name, open.back().detail});
  open.pop_back();
}

void Timeline::observe(const std::vector<std::unique_ptr<Cta>>& ctas) {
  for (const auto& cta : ctas) {
    const int process = process_of(*cta);
    for (const auto& w : cta->warps) {
      // The warp's innermost thread group, a span while it runs; a wait, a span on top of it.
      const Track group{process, w->id}, wait{process, -1 - w->id};
      const std::string role = w->state == Warp::State::Done ? "" : w->group().str();
      const auto open_group = open_.find(group);
      if (open_group == open_.end() || open_group->second.name != role) {
        end(group);
        if (!role.empty()) begin(group, role, "");
      }
      const bool blocked = w->state == Warp::State::Blocked;
      if (blocked && !open_.count(wait))
        begin(wait, std::string(waiting_at(w->waiting.until)), describe(*w, w->waiting));
      if (!blocked) end(wait);
    }
    for (const auto& [byte, barrier] : cta->mbarriers.all()) {
      int64_t& seen = phases_[{process, byte}];
      for (; seen < barrier.phase; ++seen)
        events_.push_back(Event{'i', process, kMbarrierTrack, now_, 0,
                                fmt::format("{} phase {}", barrier_name(*barrier.array, barrier.index), seen),
                                "completed"});
    }
    for (size_t a = 0; a < cta->agents.size(); ++a) {
      const Track t{process, kFirstAgentTrack + int(a)};
      const bool busy = cta->agents[a]->busy();
      if (busy && !open_.count(t)) begin(t, "work in flight", std::string(cta->agents[a]->engine()));
      if (!busy) end(t);
    }
  }
}

void Timeline::end_blocks(const std::vector<std::unique_ptr<Cta>>& ctas) {
  for (const auto& cta : ctas) {
    const auto it = processes_.find(cta.get());
    if (it == processes_.end()) continue;
    std::vector<Track> closing;
    for (const auto& [t, open] : open_)
      if (t.first == it->second) closing.push_back(t);
    for (const Track& t : closing) end(t);
    for (auto& [t, open] : regions_)
      if (t.first == it->second)
        while (!open.empty()) close_region(t, open);
    processes_.erase(it);
  }
}

void Timeline::write() const {
  nlohmann::json events = nlohmann::json::array();
  const auto emit = [&](const Event& e) {
    // A wait's track is drawn as its warp's, where it nests inside the group's span.
    const int track = e.track < 0 ? -1 - e.track : e.track;
    nlohmann::json j = {{"ph", std::string(1, e.phase)}, {"pid", e.process}, {"tid", track}};
    if (e.phase == 'M') {
      j["name"] = e.name;
      j["args"] = {{"name", e.detail}};
    } else {
      j["name"] = e.name;
      j["ts"] = e.start;
      j["args"] = {{"detail", e.detail}};
      if (e.phase == 'X') j["dur"] = e.duration;
      if (e.phase == 'i') j["s"] = "t";
    }
    events.push_back(std::move(j));
  };
  for (const Event& e : events_) emit(e);
  for (const auto& [t, open] : open_)
    emit(Event{'X', t.first, t.second, open.start, now_ - open.start, open.name, open.detail});
  for (const auto& [t, open] : regions_)
    for (const Open& o : open) emit(Event{'X', t.first, t.second, o.start, now_ - o.start, o.name, o.detail});
  const nlohmann::json trace = {
      {"traceEvents", events},
      {"otherData",
       {{"kernel", kernel_},
        {"time", "simulated: one scheduler turn (a warp running until it waits or yields) per microsecond"}}}};
  if (const std::string reason = write_text_file(path_, trace.dump(1) + "\n"); !reason.empty())
    throw Error(fmt::format("TESSEL_TRACE: cannot write the trace to {}: {}", path_, reason));
}

}  // namespace tessel::sim
