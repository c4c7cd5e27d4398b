#include "submit/task_graph.hpp"

#include <algorithm>

namespace baton::detail {

std::size_t TaskGraph::add(Range range, const Kernel& kernel, std::vector<RunArg> args,
                           std::string policy) {
  const std::size_t id = tasks_.size();
  std::vector<std::size_t> deps;
  auto depend = [&](long t) {
    if (t >= 0 && std::find(deps.begin(), deps.end(), std::size_t(t)) == deps.end())
      deps.push_back(std::size_t(t));
  };
  for (const RunArg& a : args) {
    if (!a.is_buffer) continue;
    Uses& u = uses_[a.buffer.state.get()];
    depend(u.last_writer);  // read-after-write and write-after-write
    if (a.buffer.mode != Access::in)
      for (std::size_t r : u.readers) depend(long(r));  // write-after-read
  }
  for (const RunArg& a : args) {
    if (!a.is_buffer) continue;
    Uses& u = uses_[a.buffer.state.get()];
    if (a.buffer.mode == Access::in) {
      u.readers.push_back(id);
    } else {
      u.last_writer = long(id);
      u.readers.clear();
    }
  }
  std::size_t wave = 0;
  for (std::size_t d : deps) wave = std::max(wave, tasks_[d].wave + 1);
  tasks_.push_back(Task{range, kernel, std::move(args), std::move(policy), std::move(deps), wave});
  return id;
}

std::vector<std::vector<std::size_t>> TaskGraph::waves() const {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (out.size() <= tasks_[i].wave) out.resize(tasks_[i].wave + 1);
    out[tasks_[i].wave].push_back(i);
  }
  return out;
}

void TaskGraph::clear() {
  tasks_.clear();
  uses_.clear();
}

}  // namespace baton::detail
