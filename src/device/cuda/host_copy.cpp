#include "device/cuda/host_copy.hpp"

#include "baton/options.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace baton::cuda {
namespace {

// Worker threads that each copy one part of the current job. Jobs come from
// the staged transfers of all queues, so they are serialised by submit_mu.
class CopyPool {
 public:
  explicit CopyPool(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this, i] { run(i); });
  }
  ~CopyPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned helpers() const { return unsigned(threads_.size()); }

  void copy(char* dst, const char* src, std::size_t n) {
    std::lock_guard submit(submit_mu_);
    const unsigned parts = helpers() + 1;
    // Parts on 4 KiB boundaries keep each thread on whole pages.
    const std::size_t part = (n / parts + 4095) / 4096 * 4096;
    {
      std::lock_guard lock(mu_);
      dst_ = dst, src_ = src, n_ = n, part_ = part;
      pending_ = helpers();
      ++generation_;
    }
    wake_.notify_all();
    const std::size_t mine = std::min(n, std::size_t(helpers()) * part);
    std::memcpy(dst + mine, src + mine, n - mine);
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  void run(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      const std::size_t begin = std::min(n_, index * part_), end = std::min(n_, begin + part_);
      char* dst = dst_;
      const char* src = src_;
      lock.unlock();
      std::memcpy(dst + begin, src + begin, end - begin);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex submit_mu_, mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t n_ = 0, part_ = 0;
  unsigned pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

// Threads that copy (the caller included): BATON_CUDA_COPY_THREADS, else
// half the cores, 2 to 8. Four threads copied about 23 GB/s between
// pageable and pinned memory on the H200 host and eight about 33 GB/s
// (docs/results/data-path.md), against a 55 GB/s PCIe Gen5 link.
unsigned copy_threads() {
  const int n = baton::env_options().cuda_copy_threads;
  if (n >= 1 && n <= 64) return unsigned(n);
  return std::clamp(std::thread::hardware_concurrency() / 2, 2u, 8u);
}

CopyPool& pool() {
  static CopyPool p(copy_threads() - 1);
  return p;
}

}  // namespace

void parallel_memcpy(void* dst, const void* src, std::size_t n) {
  if (n < (std::size_t(1) << 20)) {
    std::memcpy(dst, src, n);
    return;
  }
  pool().copy(static_cast<char*>(dst), static_cast<const char*>(src), n);
}

}  // namespace baton::cuda
