// Tasks submitted in program order, with the dependencies their data accesses
// imply (sequential consistency per buffer, as StarPU does): a reader waits for
// the last writer, a writer for the last writer and every reader since.
// Tasks are grouped into waves; the tasks of a wave are independent.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "baton/args.hpp"
#include "baton/range.hpp"

namespace baton::detail {

struct Task {
  Range range;
  Kernel kernel;
  std::vector<RunArg> args;
  std::string policy;
  std::vector<std::size_t> deps;  // earlier tasks this one waits for
  std::size_t wave = 0;           // 1 + the latest wave among deps
};

class TaskGraph {
 public:
  std::size_t add(Range range, const Kernel& kernel, std::vector<RunArg> args, std::string policy);
  const std::vector<Task>& tasks() const { return tasks_; }
  std::vector<std::vector<std::size_t>> waves() const;
  void clear();

 private:
  struct Uses {
    long last_writer = -1;
    std::vector<std::size_t> readers;  // since the last write
  };
  std::vector<Task> tasks_;
  std::map<const void*, Uses> uses_;  // by buffer
};

}  // namespace baton::detail
