// Shared by the CUDA benchmarks: open GPU 0 through the backend, time baton
// and the raw driver/library side by side (interleaved, medians), print a
// table and write JSON.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "device/backend.hpp"
#include "device/cuda/cuda_device.hpp"

namespace baton::bench {

struct CudaGpu {
  Options options;
  detail::BackendContext ctx{options, detail::HostFacts{}};
  detail::DeviceList devices;
  explicit CudaGpu(const std::string& args = "0")
      : devices(detail::cuda_backend().create(args, ctx)) {}
  cuda::CudaDevice& dev(std::size_t i = 0) { return static_cast<cuda::CudaDevice&>(*devices[i]); }
};

struct Row {
  std::string name, unit;  // "H2D pinned 256 MiB", "GB/s"
  double baton = 0, raw = 0;
  bool higher_is_better = true;  // GB/s, TFLOP/s; false for microseconds
  double target = 0;             // ratio the issue asks for, 0 for none
  double ratio() const { return higher_is_better ? baton / raw : raw / baton; }
};

inline double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Medians of `reps` runs of each, alternating so that drift (clocks, heat)
// hits both alike; one warm-up run of each first.
inline std::pair<double, double> side_by_side(const std::function<void()>& baton_run,
                                              const std::function<void()>& raw_run, int reps) {
  baton_run();
  raw_run();
  std::vector<double> a, b;
  for (int r = 0; r < reps; ++r) {
    a.push_back(seconds(baton_run));
    b.push_back(seconds(raw_run));
  }
  return {median(a), median(b)};
}

inline void report(const std::string& title, const std::string& device,
                   const std::vector<Row>& rows, const std::string& json_path) {
  std::printf("\n%s on %s\n", title.c_str(), device.c_str());
  std::printf("%-46s %12s %12s %8s %8s  %s\n", "case", "baton", "raw", "ratio", "target", "unit");
  for (const Row& r : rows)
    std::printf("%-46s %12.3f %12.3f %8.3f %8s  %s\n", r.name.c_str(), r.baton, r.raw, r.ratio(),
                r.target > 0 ? (">=" + std::to_string(r.target).substr(0, 4)).c_str() : "-",
                r.unit.c_str());
  std::ofstream out(json_path);
  out << "{\n  \"benchmark\": \"" << title << "\",\n  \"device\": \"" << device
      << "\",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << "    {\"case\": \"" << r.name << "\", \"unit\": \"" << r.unit
        << "\", \"baton\": " << r.baton << ", \"raw\": " << r.raw << ", \"ratio\": " << r.ratio()
        << ", \"target\": " << r.target << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  std::printf("(JSON: %s)\n", json_path.c_str());
}

}  // namespace baton::bench
