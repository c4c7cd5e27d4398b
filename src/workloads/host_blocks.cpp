#include "workloads/host_blocks.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace baton::workloads {

void for_blocks(std::uint64_t n, std::uint64_t grain,
                const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  const std::uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t blocks =
      std::clamp<std::uint64_t>(n / std::max<std::uint64_t>(1, grain), 1, threads);
  const std::uint64_t per = (n + blocks - 1) / blocks;
  std::vector<std::thread> others;
  for (std::uint64_t begin = per; begin < n; begin += per)
    others.emplace_back([&body, begin, end = std::min(n, begin + per)] { body(begin, end); });
  body(0, std::min(n, per));
  for (auto& t : others) t.join();
}

}  // namespace baton::workloads
