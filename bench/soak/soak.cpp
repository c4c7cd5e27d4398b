// Soak: many tiny tasks and many random task graphs, checked for lost or
// duplicated work, with the process's peak memory. Three parts:
//   tasks   N independent one-item tasks on the cpu backend, a few of them
//           sleeping a random while (the workers' steal timing varies);
//   graphs  G graphs of 8 to 40 tasks over three small buffers, each task
//           reading one buffer and updating another under a random policy;
//           the result is compared with the same graph replayed on the host;
//   failing the same graphs on four sim devices, up to three of which fail
//           at random virtual times: their work is re-run on the others.
//   bench_soak [--tasks N] [--graphs G] [--json FILE]
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "baton/sim.hpp"

using namespace baton;

namespace {

constexpr std::uint32_t kLen = 64;  // elements of each graph buffer
constexpr int kBuffers = 3;
const char* const kPolicies[] = {"static", "weighted", "ws", "ws-topo", "model"};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

Runtime runtime(const std::string& devices) {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  return Runtime(o);
}

struct TasksResult {
  std::uint64_t tasks = 0, lost = 0, duplicated = 0;
  double seconds = 0;
};

TasksResult soak_tasks(std::uint64_t n) {
  Runtime rt = runtime("cpu:2x1");
  std::vector<std::atomic<std::uint8_t>> runs(n);
  Kernel tick("soak.tick");
  tick.cpu([&runs](Span, const KernelArgs& a) {
    const std::uint64_t id = a.value<std::uint64_t>(0);
    runs[id].fetch_add(1, std::memory_order_relaxed);
    if (id % 997 == 0)  // now and then a task takes longer: steals happen at other moments
      std::this_thread::sleep_for(std::chrono::microseconds(id % 50));
  });
  TasksResult r;
  const double t0 = now_s();
  for (std::uint64_t i = 0; i < n; ++i) rt.submit(Range{1}, tick, i);
  rt.wait_all();
  r.seconds = now_s() - t0;
  r.tasks = n;
  for (const auto& c : runs) {
    const unsigned v = c.load();
    r.lost += v == 0;
    r.duplicated += v > 1;
  }
  return r;
}

// One step of a graph: dst[i] = dst[i] * 3 + src[i] + add (mod 2^32).
struct Step {
  int src, dst;
  std::uint32_t add;
  int policy;
};

std::vector<Step> random_graph(std::mt19937_64& g) {
  std::vector<Step> steps(8 + g() % 33);
  for (Step& s : steps) {
    s.dst = int(g() % kBuffers);
    s.src = int((std::uint64_t(s.dst) + 1 + g() % (kBuffers - 1)) % kBuffers);
    s.add = std::uint32_t(g());
    s.policy = int(g() % std::size(kPolicies));
  }
  return steps;
}

Kernel step_kernel(bool jitter) {
  Kernel k("soak.step");
  k.cpu([jitter](Span s, const KernelArgs& a) {
    const auto* src = a.ptr<std::uint32_t>(0);
    auto* dst = a.ptr<std::uint32_t>(1);
    const std::uint32_t add = a.value<std::uint32_t>(2);
    for (auto i = s.begin; i < s.end; ++i) dst[i] = dst[i] * 3u + src[i] + add;
    if (jitter && add % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(add % 30));
  });
  k.cost([](Span s) { return 2000.0 * double(s.size()); });
  return k;
}

struct GraphsResult {
  std::uint64_t graphs = 0, tasks = 0, wrong = 0, failures = 0;
  double seconds = 0;
};

// Runs `count` graphs from `seed` on `devices`, checks each against the host;
// with `fail`, up to all but one sim device fail at random virtual times.
GraphsResult soak_graphs(const std::string& devices, std::uint64_t count, std::uint64_t seed,
                         bool fail) {
  GraphsResult r;
  std::mt19937_64 g(seed);
  const Kernel k = step_kernel(!fail);
  const double t0 = now_s();
  constexpr std::uint64_t kPerRuntime = 100;  // graphs per Runtime (failed devices stay failed)
  for (std::uint64_t first = 0; first < count; first += kPerRuntime) {
    Runtime rt = runtime(devices);
    if (fail) {
      const std::size_t n = rt.devices().size();
      const std::size_t failing = g() % n;  // at most all but one
      for (std::size_t d = 0; d < failing; ++d) {
        // Within the first graphs' virtual time (a graph takes some 10 us).
        sim::fail_at(*rt.devices()[d], rt.clock().now() + double(g() % 2000) * 1e-6);
        ++r.failures;
      }
    }
    for (std::uint64_t gi = first; gi < std::min(count, first + kPerRuntime); ++gi) {
      const std::vector<Step> steps = random_graph(g);
      std::vector<Buffer<std::uint32_t>> bufs;
      std::vector<std::vector<std::uint32_t>> want(kBuffers, std::vector<std::uint32_t>(kLen));
      for (int b = 0; b < kBuffers; ++b) {
        bufs.push_back(rt.buffer<std::uint32_t>(kLen));
        for (std::uint32_t i = 0; i < kLen; ++i)
          bufs[b].host()[i] = want[b][i] = std::uint32_t(gi * 131 + b * 17 + i);
      }
      for (const Step& s : steps) {
        rt.submit(Range{kLen}, k, in(bufs[s.src]), inout(bufs[s.dst]), s.add,
                  Policy::by_name(kPolicies[s.policy]));
        for (std::uint32_t i = 0; i < kLen; ++i)
          want[s.dst][i] = want[s.dst][i] * 3u + want[s.src][i] + s.add;
      }
      rt.wait_all();
      bool ok = true;
      for (int b = 0; b < kBuffers; ++b) {
        const auto got = bufs[b].read();
        ok = ok && std::equal(got.begin(), got.end(), want[b].begin(), want[b].end());
      }
      r.wrong += !ok;
      r.tasks += steps.size();
      ++r.graphs;
    }
  }
  r.seconds = now_s() - t0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t tasks = 10'000'000, graphs = 10'000;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_soak: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--tasks")
        tasks = std::stoull(next());
      else if (a == "--graphs")
        graphs = std::stoull(next());
      else if (a == "--json")
        json = next();
      else
        throw std::invalid_argument(a);
    } catch (const std::exception&) {
      std::fprintf(stderr,
                   "bench_soak: bad argument '%s' (see the header of bench/soak/soak.cpp)\n",
                   a.c_str());
      return 2;
    }
  }
  try {
    const TasksResult t = soak_tasks(tasks);
    std::printf(
        "tasks:   %llu one-item tasks on cpu:2x1 in %.2f s (%.0f per s): %llu lost, %llu "
        "run twice\n",
        (unsigned long long)t.tasks, t.seconds, double(t.tasks) / t.seconds,
        (unsigned long long)t.lost, (unsigned long long)t.duplicated);
    const double rss_tasks = peak_rss_mib();
    const GraphsResult cpu = soak_graphs("cpu:2x1", graphs, 1, false);
    std::printf("graphs:  %llu random graphs (%llu tasks) on cpu:2x1 in %.2f s: %llu wrong\n",
                (unsigned long long)cpu.graphs, (unsigned long long)cpu.tasks, cpu.seconds,
                (unsigned long long)cpu.wrong);
    const GraphsResult sim = soak_graphs("sim:4,2,1,1", graphs, 2, true);
    std::printf(
        "failing: %llu random graphs (%llu tasks) on sim:4,2,1,1, %llu devices failed: "
        "%llu wrong\n",
        (unsigned long long)sim.graphs, (unsigned long long)sim.tasks,
        (unsigned long long)sim.failures, (unsigned long long)sim.wrong);
    const double rss = peak_rss_mib();
    std::printf("peak RSS: %.1f MiB (%.1f MiB after the tasks)\n", rss, rss_tasks);
    if (!json.empty()) {
      std::ofstream out(json);
      out << "{\"tasks\": " << t.tasks << ", \"tasks_seconds\": " << t.seconds
          << ", \"lost\": " << t.lost << ", \"duplicated\": " << t.duplicated
          << ", \"graphs\": " << cpu.graphs << ", \"graph_tasks\": " << cpu.tasks
          << ", \"graphs_wrong\": " << cpu.wrong << ", \"failing_graphs\": " << sim.graphs
          << ", \"failing_tasks\": " << sim.tasks << ", \"devices_failed\": " << sim.failures
          << ", \"failing_wrong\": " << sim.wrong << ", \"peak_rss_mib\": " << rss
          << ", \"peak_rss_mib_after_tasks\": " << rss_tasks << "}\n";
    }
    const bool ok = t.lost == 0 && t.duplicated == 0 && cpu.wrong == 0 && sim.wrong == 0;
    if (!ok) std::printf("FAILED: work was lost, run twice or wrong\n");
    return ok ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_soak: %s\n", e.what());
    return 1;
  }
}
