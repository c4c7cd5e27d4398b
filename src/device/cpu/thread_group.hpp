// A CPU device's threads. The device's host worker is member 0 and works on
// each job itself; the other members sleep on a generation counter between jobs.
#pragma once

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "baton/range.hpp"

namespace baton::detail {

class ThreadGroup {
 public:
  explicit ThreadGroup(int threads);  // threads >= 1, the caller included
  ~ThreadGroup();
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  int size() const { return static_cast<int>(helpers_.size()) + 1; }
  // Runs fn over span, cut into contiguous pieces, several per thread, that
  // the threads take in turn until none is left; returns when all are done.
  // A thread that shares its core (with a GPU's worker, with another job)
  // then takes fewer pieces, instead of the whole job waiting for its even
  // share. Only the device's worker calls this, so jobs never overlap.
  void run(Span span, const std::function<void(Span)>& fn);

 private:
  static constexpr std::uint64_t kPiecesPerThread = 8;
  void helper_loop();
  void take_pieces();
  Span piece(std::uint64_t index) const;

  std::vector<std::thread> helpers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> next_piece_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  Span span_{};
  std::uint64_t pieces_ = 0;
  const std::function<void(Span)>* fn_ = nullptr;
};

}  // namespace baton::detail
