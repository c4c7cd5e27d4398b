#include "device/opencl/link_probe.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace baton::detail::opencl {

namespace {

// Seconds a write of `bytes` takes, from enqueue to completion.
double time_write(Queue& queue, DeviceMemory memory, const void* host, std::size_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  queue.write(memory, 0, host, bytes, HostKind::pageable);
  queue.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median_write(Queue& queue, DeviceMemory memory, const void* host, std::size_t bytes,
                    int samples) {
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) seconds.push_back(time_write(queue, memory, host, bytes));
  std::nth_element(seconds.begin(), seconds.begin() + samples / 2, seconds.end());
  return seconds[samples / 2];
}

}  // namespace

LinkFigures probe_host_link(Device& device, std::size_t bytes) {
  bytes = std::min<std::size_t>(bytes, device.info().memory_bytes / 4);
  const std::vector<unsigned char> host(bytes, 1);
  DeviceMemory memory = device.allocate(bytes);
  Queue& queue = device.queue(QueueRole::copy_in);
  LinkFigures figures;
  try {
    time_write(queue, memory, host.data(), bytes);  // warm-up: first touch allocates
    const double large = median_write(queue, memory, host.data(), bytes, 3);
    const double small = median_write(queue, memory, host.data(), 4, 5);
    figures.latency_us = small * 1e6;
    // The small write's cost is the fixed part of the large one's.
    figures.gbps = double(bytes) / std::max(large - small, 1e-9) / 1e9;
  } catch (...) {
    device.release(memory);
    throw;
  }
  device.release(memory);
  return figures;
}

}  // namespace baton::detail::opencl
