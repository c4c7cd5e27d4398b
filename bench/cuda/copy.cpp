// Transfers through baton's CUDA queues against the raw driver calls, in the
// same run: pinned H2D/D2H (cuMemcpy*Async), pageable through the staging
// ring (against synchronous cuMemcpyHtoD/DtoH from the same pageable
// buffer), and device-to-device.
//   bench_cuda_copy [json path]
#include <cstring>

#include "bench_util.hpp"
#include "device/cuda/host_copy.hpp"

using namespace baton;
using namespace baton::bench;

int main(int argc, char** argv) {
  CudaGpu gpu;
  cuda::CudaDevice& dev = gpu.dev();
  const cuda::DriverApi& d = cuda::driver();
  cuda::ContextGuard guard(dev.gpu().primary());
  constexpr std::size_t S = std::size_t(256) << 20, D = std::size_t(1) << 30;
  constexpr int reps = 15;

  void* pinned = nullptr;
  cuda::check(d.cuMemHostAlloc(&pinned, S, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc", "bench");
  std::vector<unsigned char> pageable(S);
  for (std::size_t i = 0; i < S; ++i) pageable[i] = static_cast<unsigned char>(i * 131);
  std::memcpy(pinned, pageable.data(), S);
  DeviceMemory a = dev.allocate(D), b = dev.allocate(D);
  const auto pa = reinterpret_cast<CUdeviceptr>(a.ptr), pb = reinterpret_cast<CUdeviceptr>(b.ptr);
  Queue& in = dev.queue(QueueRole::copy_in);
  Queue& out = dev.queue(QueueRole::copy_out);
  Queue& compute = dev.queue(QueueRole::compute);
  CUstream raw = nullptr;
  cuda::check(d.cuStreamCreate(&raw, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "bench");
  auto sync = [&] { cuda::check(d.cuStreamSynchronize(raw), "cuStreamSynchronize", "bench"); };
  auto gbps = [](std::size_t bytes, double s) { return double(bytes) / s * 1e-9; };

  std::vector<Row> rows;
  auto add = [&](const char* name, std::size_t bytes, std::pair<double, double> t, double target) {
    rows.push_back({name, "GB/s", gbps(bytes, t.first), gbps(bytes, t.second), true, target});
  };
  add("H2D pinned 256 MiB", S,
      side_by_side([&] { in.write(a, 0, pinned, S, HostKind::pinned), in.finish(); },
                   [&] { d.cuMemcpyHtoDAsync(pa, pinned, S, raw), sync(); }, reps),
      0.95);
  add("D2H pinned 256 MiB", S,
      side_by_side([&] { out.read(pinned, a, 0, S, HostKind::pinned), out.finish(); },
                   [&] { d.cuMemcpyDtoHAsync(pinned, pa, S, raw), sync(); }, reps),
      0.95);
  // Both directions at once (a run from host memory copies inputs in while
  // results go home): per direction, each side's two copies on two streams.
  void* pinned_back = nullptr;
  cuda::check(d.cuMemHostAlloc(&pinned_back, S, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc",
              "bench");
  CUstream raw_back = nullptr;
  cuda::check(d.cuStreamCreate(&raw_back, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "bench");
  add("H2D + D2H pinned 256 MiB at once, per direction", S,
      side_by_side(
          [&] {
            in.write(a, 0, pinned, S, HostKind::pinned);
            out.read(pinned_back, b, 0, S, HostKind::pinned);
            in.finish(), out.finish();
          },
          [&] {
            d.cuMemcpyHtoDAsync(pa, pinned, S, raw);
            d.cuMemcpyDtoHAsync(pinned_back, pb, S, raw_back);
            sync();
            cuda::check(d.cuStreamSynchronize(raw_back), "cuStreamSynchronize", "bench");
          },
          reps),
      0.95);
  add("H2D pageable 256 MiB (staged)", S,
      side_by_side([&] { in.write(a, 0, pageable.data(), S, HostKind::pageable), in.finish(); },
                   [&] { cuda::check(d.cuMemcpyHtoD(pa, pageable.data(), S), "cuMemcpyHtoD", ""); },
                   reps),
      3.0);
  add("D2H pageable 256 MiB (staged)", S,
      side_by_side([&] { out.read(pageable.data(), a, 0, S, HostKind::pageable), out.finish(); },
                   [&] { cuda::check(d.cuMemcpyDtoH(pageable.data(), pa, S), "cuMemcpyDtoH", ""); },
                   reps),
      3.0);
  // Device-to-device moves each byte twice (read and write): count both.
  auto dtod = side_by_side([&] { compute.copy(b, 0, a, 0, D), compute.finish(); },
                           [&] { d.cuMemcpyDtoDAsync(pb, pa, D, raw), sync(); }, reps);
  rows.push_back({"D2D 1 GiB (read+write)", "GB/s", gbps(2 * D, dtod.first),
                  gbps(2 * D, dtod.second), true, 0.95});

  // The CPU side of staging: the copy pool against one memcpy, pageable to pinned.
  add("host copy pageable->pinned (pool vs 1 thread)", S,
      side_by_side([&] { cuda::parallel_memcpy(pinned, pageable.data(), S); },
                   [&] { std::memcpy(pinned, pageable.data(), S); }, reps),
      0);

  // Check that the staged round trip kept every byte.
  std::vector<unsigned char> back(S);
  in.write(a, 0, pageable.data(), S, HostKind::pageable);
  in.finish();
  out.read(back.data(), a, 0, S, HostKind::pageable);
  const bool intact = back == pageable;
  std::printf("staged round trip of 256 MiB: %s\n", intact ? "intact" : "CORRUPTED");

  report("CUDA copies: baton queues vs raw driver calls", dev.info().description, rows,
         argc > 1 ? argv[1] : "bench_cuda_copy.json");
  d.cuStreamDestroy(raw);
  d.cuStreamDestroy(raw_back);
  d.cuMemFreeHost(pinned);
  d.cuMemFreeHost(pinned_back);
  dev.release(a);
  dev.release(b);
  return intact ? 0 : 1;
}
