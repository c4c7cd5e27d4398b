// Per-task cost of small kernels through baton's CUDA queue against raw
// cuLaunchKernel of the same function on a stream of our own: enqueue rate
// of an empty kernel, the scheduler's pattern (launch + record an event per
// chunk), and a small saxpy (64 Ki items).
//   bench_cuda_overhead [json path]
#include "bench_util.hpp"
#include "workloads/builtin_fatbin.hpp"

using namespace baton;
using namespace baton::bench;

int main(int argc, char** argv) {
  if (detail::builtin_cuda_fatbin().empty()) {
    std::fprintf(stderr, "built without nvcc: no built-in kernels\n");
    return 1;
  }
  CudaGpu gpu;
  cuda::CudaDevice& dev = gpu.dev();
  dev.bind_thread();
  const cuda::DriverApi& d = cuda::driver();
  constexpr int tasks = 20000, reps = 7;
  Queue& q = dev.queue(QueueRole::compute);

  CUmodule module = nullptr;
  cuda::check(d.cuModuleLoadData(&module, detail::builtin_cuda_fatbin().data()), "cuModuleLoadData",
              "bench");
  CUfunction empty_fn = nullptr, saxpy_fn = nullptr;
  d.cuModuleGetFunction(&empty_fn, module, "baton_empty");
  d.cuModuleGetFunction(&saxpy_fn, module, "baton_saxpy");
  CUstream raw = nullptr;
  d.cuStreamCreate(&raw, CU_STREAM_NON_BLOCKING);
  CUevent ev = nullptr;
  d.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);

  const std::uint64_t n = 1 << 16;
  DeviceMemory x = dev.allocate(n * 4), y = dev.allocate(n * 4);
  std::vector<float> ones(n, 1.0f);
  q.write(x, 0, ones.data(), n * 4, HostKind::pageable);
  q.write(y, 0, ones.data(), n * 4, HostKind::pageable);
  q.finish();
  const float a = 0.5f;
  std::vector<LaunchArg> saxpy_args{scalar_arg(a), buffer_arg(x, 4), buffer_arg(y, 4)};
  Kernel empty = Kernel("baton_empty").cuda_image(detail::builtin_cuda_fatbin(), "baton_empty");
  Kernel saxpy = Kernel("baton_saxpy").cuda_image(detail::builtin_cuda_fatbin(), "baton_saxpy");

  unsigned long long begin = 0, end = 256;
  void* empty_params[] = {&begin, &end};
  unsigned long long send = n;
  float fa = a;
  CUdeviceptr px = reinterpret_cast<CUdeviceptr>(x.ptr), py = reinterpret_cast<CUdeviceptr>(y.ptr);
  void* saxpy_params[] = {&begin, &send, &fa, &px, &py};

  auto us = [](double s) { return s / tasks * 1e6; };
  std::vector<Row> rows;
  auto add = [&](const char* name, std::pair<double, double> t) {
    rows.push_back({name, "us/task", us(t.first), us(t.second), false, 0});
  };
  add("empty kernel", side_by_side(
                          [&] {
                            for (int i = 0; i < tasks; ++i)
                              q.launch(empty, Span{0, 256}, KernelArgs({}));
                            q.finish();
                          },
                          [&] {
                            for (int i = 0; i < tasks; ++i)
                              d.cuLaunchKernel(empty_fn, 1, 1, 1, 256, 1, 1, 0, raw, empty_params,
                                               nullptr);
                            d.cuStreamSynchronize(raw);
                          },
                          reps));
  add("empty kernel + event per task", side_by_side(
                                           [&] {
                                             for (int i = 0; i < tasks; ++i) {
                                               q.launch(empty, Span{0, 256}, KernelArgs({}));
                                               EventPtr e = q.record();
                                             }
                                             q.finish();
                                           },
                                           [&] {
                                             for (int i = 0; i < tasks; ++i) {
                                               d.cuLaunchKernel(empty_fn, 1, 1, 1, 256, 1, 1, 0,
                                                                raw, empty_params, nullptr);
                                               d.cuEventRecord(ev, raw);
                                             }
                                             d.cuStreamSynchronize(raw);
                                           },
                                           reps));
  add("saxpy 64 Ki items", side_by_side(
                               [&] {
                                 for (int i = 0; i < tasks; ++i)
                                   q.launch(saxpy, Span{0, n}, KernelArgs(saxpy_args));
                                 q.finish();
                               },
                               [&] {
                                 for (int i = 0; i < tasks; ++i)
                                   d.cuLaunchKernel(saxpy_fn, unsigned(n / 256), 1, 1, 256, 1, 1, 0,
                                                    raw, saxpy_params, nullptr);
                                 d.cuStreamSynchronize(raw);
                               },
                               reps));
  report("Per-task overhead: baton CUDA queue vs raw cuLaunchKernel", dev.info().description, rows,
         argc > 1 ? argv[1] : "bench_cuda_overhead.json");
  d.cuEventDestroy(ev);
  d.cuStreamDestroy(raw);
  d.cuModuleUnload(module);
  dev.release(x);
  dev.release(y);
  return 0;
}
